//! `twitter.json`: one page of a Twitter search (statuses with their users
//! and entities): many short strings, 64-bit ids, and optional fields.

use serde::{Deserialize, Serialize};

/// The root: the statuses and the search that found them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Twitter {
    /// `statuses`
    pub statuses: Vec<Status>,
    /// `search_metadata`
    pub search_metadata: SearchMetadata,
}

/// A value that is always `null` in the file (`geo`, `coordinates`,
/// `place`, `contributors`).
pub type AlwaysNull = Option<()>;

/// One status (tweet); a retweet holds the status it repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// `metadata`
    pub metadata: StatusMetadata,
    /// `created_at`
    pub created_at: String,
    /// `id`
    pub id: u64,
    /// `id_str`
    pub id_str: String,
    /// `text`
    pub text: String,
    /// `source` (an HTML link)
    pub source: String,
    /// `truncated`
    pub truncated: bool,
    /// `in_reply_to_status_id`
    pub in_reply_to_status_id: Option<u64>,
    /// `in_reply_to_status_id_str`
    pub in_reply_to_status_id_str: Option<String>,
    /// `in_reply_to_user_id`
    pub in_reply_to_user_id: Option<u64>,
    /// `in_reply_to_user_id_str`
    pub in_reply_to_user_id_str: Option<String>,
    /// `in_reply_to_screen_name`
    pub in_reply_to_screen_name: Option<String>,
    /// `user`
    pub user: User,
    /// `geo`
    pub geo: AlwaysNull,
    /// `coordinates`
    pub coordinates: AlwaysNull,
    /// `place`
    pub place: AlwaysNull,
    /// `contributors`
    pub contributors: AlwaysNull,
    /// `retweeted_status` (absent unless this is a retweet)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retweeted_status: Option<Box<Status>>,
    /// `retweet_count`
    pub retweet_count: u64,
    /// `favorite_count`
    pub favorite_count: u64,
    /// `entities`
    pub entities: StatusEntities,
    /// `favorited`
    pub favorited: bool,
    /// `retweeted`
    pub retweeted: bool,
    /// `possibly_sensitive` (absent unless the status has links)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub possibly_sensitive: Option<bool>,
    /// `lang`
    pub lang: String,
}

/// `metadata` of a [`Status`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusMetadata {
    /// `result_type`
    pub result_type: String,
    /// `iso_language_code`
    pub iso_language_code: String,
}

/// The author of a [`Status`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    /// `id`
    pub id: u64,
    /// `id_str`
    pub id_str: String,
    /// `name`
    pub name: String,
    /// `screen_name`
    pub screen_name: String,
    /// `location`
    pub location: String,
    /// `description`
    pub description: String,
    /// `url`
    pub url: Option<String>,
    /// `entities`
    pub entities: UserEntities,
    /// `protected`
    pub protected: bool,
    /// `followers_count`
    pub followers_count: u64,
    /// `friends_count`
    pub friends_count: u64,
    /// `listed_count`
    pub listed_count: u64,
    /// `created_at`
    pub created_at: String,
    /// `favourites_count`
    pub favourites_count: u64,
    /// `utc_offset`, in seconds
    pub utc_offset: Option<i64>,
    /// `time_zone`
    pub time_zone: Option<String>,
    /// `geo_enabled`
    pub geo_enabled: bool,
    /// `verified`
    pub verified: bool,
    /// `statuses_count`
    pub statuses_count: u64,
    /// `lang`
    pub lang: String,
    /// `contributors_enabled`
    pub contributors_enabled: bool,
    /// `is_translator`
    pub is_translator: bool,
    /// `is_translation_enabled`
    pub is_translation_enabled: bool,
    /// `profile_background_color`
    pub profile_background_color: String,
    /// `profile_background_image_url`
    pub profile_background_image_url: String,
    /// `profile_background_image_url_https`
    pub profile_background_image_url_https: String,
    /// `profile_background_tile`
    pub profile_background_tile: bool,
    /// `profile_image_url`
    pub profile_image_url: String,
    /// `profile_image_url_https`
    pub profile_image_url_https: String,
    /// `profile_banner_url` (absent for some users)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_banner_url: Option<String>,
    /// `profile_link_color`
    pub profile_link_color: String,
    /// `profile_sidebar_border_color`
    pub profile_sidebar_border_color: String,
    /// `profile_sidebar_fill_color`
    pub profile_sidebar_fill_color: String,
    /// `profile_text_color`
    pub profile_text_color: String,
    /// `profile_use_background_image`
    pub profile_use_background_image: bool,
    /// `default_profile`
    pub default_profile: bool,
    /// `default_profile_image`
    pub default_profile_image: bool,
    /// `following`
    pub following: bool,
    /// `follow_request_sent`
    pub follow_request_sent: bool,
    /// `notifications`
    pub notifications: bool,
}

/// `entities` of a [`User`]: the links in its profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserEntities {
    /// `url` (absent when the user has no link)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<UrlList>,
    /// `description`
    pub description: UrlList,
}

/// `{"urls": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UrlList {
    /// `urls`
    pub urls: Vec<Url>,
}

/// A link in a text, and where it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Url {
    /// `url` (shortened)
    pub url: String,
    /// `expanded_url`
    pub expanded_url: String,
    /// `display_url`
    pub display_url: String,
    /// `indices`: start and end in the text
    pub indices: Vec<u32>,
}

/// `entities` of a [`Status`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusEntities {
    /// `hashtags`
    pub hashtags: Vec<Hashtag>,
    /// `symbols` (cashtags, same shape as hashtags; empty in the file)
    pub symbols: Vec<Hashtag>,
    /// `urls`
    pub urls: Vec<Url>,
    /// `user_mentions`
    pub user_mentions: Vec<UserMention>,
    /// `media` (absent unless the status has pictures)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<Vec<Media>>,
}

/// A hashtag and where it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hashtag {
    /// `text`
    pub text: String,
    /// `indices`
    pub indices: Vec<u32>,
}

/// A mention of a user and where it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMention {
    /// `screen_name`
    pub screen_name: String,
    /// `name`
    pub name: String,
    /// `id`
    pub id: u64,
    /// `id_str`
    pub id_str: String,
    /// `indices`
    pub indices: Vec<u32>,
}

/// A picture attached to a status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Media {
    /// `id`
    pub id: u64,
    /// `id_str`
    pub id_str: String,
    /// `indices`
    pub indices: Vec<u32>,
    /// `media_url`
    pub media_url: String,
    /// `media_url_https`
    pub media_url_https: String,
    /// `url`
    pub url: String,
    /// `display_url`
    pub display_url: String,
    /// `expanded_url`
    pub expanded_url: String,
    /// `type` (`"photo"`)
    #[serde(rename = "type")]
    pub kind: String,
    /// `sizes`
    pub sizes: Sizes,
    /// `source_status_id` (only on media of a retweeted status)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_status_id: Option<u64>,
    /// `source_status_id_str`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_status_id_str: Option<String>,
}

/// The sizes a picture is offered in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sizes {
    /// `medium`
    pub medium: Size,
    /// `small`
    pub small: Size,
    /// `thumb`
    pub thumb: Size,
    /// `large`
    pub large: Size,
}

/// One size of a picture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Size {
    /// `w`
    pub w: u32,
    /// `h`
    pub h: u32,
    /// `resize` (`"fit"` or `"crop"`)
    pub resize: String,
}

/// `search_metadata`: the query and the paging of the results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchMetadata {
    /// `completed_in`, in seconds
    pub completed_in: f64,
    /// `max_id`
    pub max_id: u64,
    /// `max_id_str`
    pub max_id_str: String,
    /// `next_results`
    pub next_results: String,
    /// `query`
    pub query: String,
    /// `refresh_url`
    pub refresh_url: String,
    /// `count`
    pub count: u64,
    /// `since_id`
    pub since_id: u64,
    /// `since_id_str`
    pub since_id_str: String,
}
