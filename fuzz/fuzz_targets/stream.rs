//! Record streams (FORMAT.md section 24): arbitrary bytes as a stream,
//! read frame by frame with the stream's dictionary. Must never crash;
//! every document read converts to JSON; `scan` agrees with the reader on
//! where the whole frames end and on the torn tail.
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving::stream::{scan, Kind, Reader, StreamDictionary};

fuzz_target!(|data: &[u8]| {
    let Ok(mut r) = Reader::new(data) else {
        assert!(scan(data).is_err());
        return;
    };
    let mut dicts = StreamDictionary::new();
    let mut heads_ok = true;
    loop {
        match r.next_frame() {
            Ok(Some(f)) => match f.kind {
                Kind::Dictionary => {
                    let _ = dicts.learn(&f);
                }
                Kind::Document => {
                    if let Ok(doc) = dicts.open(&f) {
                        let _ = roving::json::to_json(doc.root());
                    }
                }
            },
            Ok(None) => break,
            Err(e) => {
                assert!(e.offset().is_some_and(|o| o as usize <= data.len()));
                heads_ok = false;
                break;
            }
        }
    }
    match scan(data) {
        Ok(s) => {
            assert!(heads_ok);
            assert_eq!(s.end, r.offset());
            assert_eq!(s.torn, r.torn_tail());
        }
        Err(_) => assert!(!heads_ok),
    }
});
