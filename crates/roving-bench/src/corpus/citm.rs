//! `citm_catalog.json`: a concert hall's catalogue, mostly maps keyed by
//! numeric ids written as strings, and small integer records.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Names keyed by an id (as a string, the JSON object's key).
pub type Names = BTreeMap<String, String>;

/// The root object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CitmCatalog {
    /// `areaNames`
    pub area_names: Names,
    /// `audienceSubCategoryNames`
    pub audience_sub_category_names: Names,
    /// `blockNames` (empty in the file)
    pub block_names: Names,
    /// `events`, keyed by event id
    pub events: BTreeMap<String, Event>,
    /// `performances`
    pub performances: Vec<Performance>,
    /// `seatCategoryNames`
    pub seat_category_names: Names,
    /// `subTopicNames`
    pub sub_topic_names: Names,
    /// `subjectNames` (empty in the file)
    pub subject_names: Names,
    /// `topicNames`
    pub topic_names: Names,
    /// `topicSubTopics`: sub-topic ids of each topic id
    pub topic_sub_topics: BTreeMap<String, Vec<u64>>,
    /// `venueNames`
    pub venue_names: Names,
}

/// One event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// `description` (null in the file)
    pub description: Option<String>,
    /// `id`
    pub id: u64,
    /// `logo`, a path, or null
    pub logo: Option<String>,
    /// `name`
    pub name: String,
    /// `subTopicIds`
    pub sub_topic_ids: Vec<u64>,
    /// `subjectCode` (null in the file)
    pub subject_code: Option<String>,
    /// `subtitle` (null in the file)
    pub subtitle: Option<String>,
    /// `topicIds`
    pub topic_ids: Vec<u64>,
}

/// One performance of an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Performance {
    /// `eventId`
    pub event_id: u64,
    /// `id`
    pub id: u64,
    /// `logo`, a path, or null
    pub logo: Option<String>,
    /// `name` (null in the file)
    pub name: Option<String>,
    /// `prices`
    pub prices: Vec<Price>,
    /// `seatCategories`
    pub seat_categories: Vec<SeatCategory>,
    /// `seatMapImage` (null in the file)
    pub seat_map_image: Option<String>,
    /// `start`, milliseconds since 1970
    pub start: u64,
    /// `venueCode`
    pub venue_code: String,
}

/// A price of a seat category for an audience.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Price {
    /// `amount`
    pub amount: u64,
    /// `audienceSubCategoryId`
    pub audience_sub_category_id: u64,
    /// `seatCategoryId`
    pub seat_category_id: u64,
}

/// The areas of a seat category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatCategory {
    /// `areas`
    pub areas: Vec<Area>,
    /// `seatCategoryId`
    pub seat_category_id: u64,
}

/// One area and its blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Area {
    /// `areaId`
    pub area_id: u64,
    /// `blockIds` (empty in the file)
    pub block_ids: Vec<u64>,
}
