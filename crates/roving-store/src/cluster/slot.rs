//! Redis Cluster's key slots: CRC16 (XMODEM) of the key, or of its hash
//! tag (the text between the first `{` and the next `}`, if not empty),
//! modulo 16384.

/// The number of slots of a Redis Cluster.
pub(crate) const SLOTS: u16 = 16384;

/// CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), as Redis
/// computes it.
fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in bytes {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The part of `key` that decides its slot: its hash tag, or all of it.
pub(crate) fn hash_part(key: &[u8]) -> &[u8] {
    if let Some(open) = key.iter().position(|&b| b == b'{') {
        if let Some(len) = key[open + 1..].iter().position(|&b| b == b'}') {
            if len > 0 {
                return &key[open + 1..open + 1 + len];
            }
        }
    }
    key
}

/// The slot of `key`.
pub(crate) fn slot(key: &[u8]) -> u16 {
    crc16(hash_part(key)) % SLOTS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values given by Redis itself (`CLUSTER KEYSLOT`) and its spec.
    #[test]
    fn slots_match_redis() {
        assert_eq!(crc16(b"123456789"), 0x31c3);
        assert_eq!(slot(b"foo"), 12182);
        assert_eq!(slot(b"bar"), 5061);
        assert_eq!(slot(b"{user1000}.following"), slot(b"user1000"));
        assert_eq!(slot(b"foo{}{bar}"), slot(b"foo{}{bar}"));
        assert_eq!(hash_part(b"foo{}{bar}"), b"foo{}{bar}");
        assert_eq!(hash_part(b"foo{{bar}}zap"), b"{bar");
        assert_eq!(hash_part(b"foo{bar}{zap}"), b"bar");
    }
}
