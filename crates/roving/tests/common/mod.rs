#![allow(dead_code)]
pub mod neutral;
