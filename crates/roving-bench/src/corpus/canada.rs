//! `canada.json`: a GeoJSON feature collection (the outline of Canada),
//! almost all of it floating-point coordinate pairs.

use serde::{Deserialize, Serialize};

/// The root: `{"type": "FeatureCollection", "features": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeatureCollection {
    /// `type` (`"FeatureCollection"`)
    #[serde(rename = "type")]
    pub kind: String,
    /// `features`
    pub features: Vec<Feature>,
}

/// One feature: a name and a geometry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feature {
    /// `type` (`"Feature"`)
    #[serde(rename = "type")]
    pub kind: String,
    /// `properties`
    pub properties: Properties,
    /// `geometry`
    pub geometry: Geometry,
}

/// The properties of a [`Feature`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Properties {
    /// `name`
    pub name: String,
}

/// A polygon: rings of `[longitude, latitude]` pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Geometry {
    /// `type` (`"Polygon"`)
    #[serde(rename = "type")]
    pub kind: String,
    /// `coordinates`: each ring a list of `[x, y]`.
    pub coordinates: Vec<Vec<(f64, f64)>>,
}
