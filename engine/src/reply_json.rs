//! JSON forms of replies and of binary-safe byte strings, shared by the admin HTTP API and the
//! browser playground (through `inspect`) so both show them the same way.
//!
//! Byte strings (keys, values, bulk replies): valid UTF-8 becomes a plain JSON string, any
//! other bytes become `{"base64": "<standard base64 with padding>"}`. [`bytes_from_json`]
//! accepts both forms back.
//!
//! A [`Reply`] becomes tagged JSON, one object per reply with its RESP type:
//!
//! | Reply | JSON |
//! | --- | --- |
//! | `+OK`, `+PONG` | `{"type":"status","value":"OK"}` |
//! | error | `{"type":"error","value":"ERR syntax error"}` |
//! | integer | `{"type":"int","value":1}` |
//! | bulk string | `{"type":"bulk","value":"hello"}` (or `{"base64":...}` as value) |
//! | nil (bulk or array) | `{"type":"nil"}` |
//! | array / set | `{"type":"array","value":[...]}` / `{"type":"set","value":[...]}` |
//! | map | `{"type":"map","value":[[key, value], ...]}` (keys are tagged replies too) |
//! | double | `{"type":"double","value":1.5}` (`"inf"`, `"-inf"`, `"nan"` as strings) |
//! | boolean | `{"type":"bool","value":true}` |
//! | verbatim | `{"type":"verbatim","format":"txt","value":"..."}` |
//! | push (pub/sub message) | `{"type":"push","value":[...]}` |
//! | several replies to one command (SUBSCRIBE a b) | `{"type":"many","value":[...]}` |

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde_json::{json, Value as Json};

use crate::num::format_double;
use crate::reply::Reply;

/// A byte string as JSON: a string when it is valid UTF-8, else `{"base64": "..."}`.
pub fn bytes_to_json(bytes: &[u8]) -> Json {
    match std::str::from_utf8(bytes) {
        Ok(text) => Json::String(text.to_string()),
        Err(_) => json!({ "base64": BASE64.encode(bytes) }),
    }
}

/// The bytes a JSON string or `{"base64": "..."}` object stands for; `None` for anything
/// else (numbers, arrays, bad base64, an object with other fields).
pub fn bytes_from_json(value: &Json) -> Option<Vec<u8>> {
    match value {
        Json::String(s) => Some(s.as_bytes().to_vec()),
        Json::Object(map) if map.len() == 1 => BASE64.decode(map.get("base64")?.as_str()?).ok(),
        _ => None,
    }
}

impl Reply {
    /// This reply as tagged JSON (see the module docs for the shapes).
    pub fn to_json(&self) -> Json {
        match self {
            Reply::Ok => json!({ "type": "status", "value": "OK" }),
            Reply::Status(s) => json!({ "type": "status", "value": s }),
            Reply::Error(s) => json!({ "type": "error", "value": s }),
            Reply::Int(n) => json!({ "type": "int", "value": n }),
            Reply::Bulk(b) => json!({ "type": "bulk", "value": bytes_to_json(b) }),
            Reply::Nil | Reply::NilArray => json!({ "type": "nil" }),
            Reply::Array(items) => {
                json!({ "type": "array", "value": items.iter().map(Reply::to_json).collect::<Vec<_>>() })
            }
            Reply::Set(items) => {
                json!({ "type": "set", "value": items.iter().map(Reply::to_json).collect::<Vec<_>>() })
            }
            Reply::Map(pairs) => json!({
                "type": "map",
                "value": pairs.iter().map(|(k, v)| json!([k.to_json(), v.to_json()])).collect::<Vec<_>>(),
            }),
            Reply::HumanDouble(d) if d.is_finite() => json!({ "type": "double", "value": d }),
            Reply::HumanDouble(d) => json!({ "type": "double", "value": crate::num::format_human(*d) }),
            Reply::Double(d) if d.is_finite() => json!({ "type": "double", "value": d }),
            Reply::Double(d) => json!({ "type": "double", "value": format_double(*d) }),
            Reply::Bool(b) => json!({ "type": "bool", "value": b }),
            Reply::Verbatim(s) => json!({ "type": "verbatim", "format": "txt", "value": s }),
            Reply::Push(items) => {
                json!({ "type": "push", "value": items.iter().map(Reply::to_json).collect::<Vec<_>>() })
            }
            Reply::Many(replies) => {
                json!({ "type": "many", "value": replies.iter().map(Reply::to_json).collect::<Vec<_>>() })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_as_text_or_base64() {
        assert_eq!(bytes_to_json(b"caf\xc3\xa9"), json!("café"));
        assert_eq!(bytes_to_json(b"\xff\x00"), json!({ "base64": "/wA=" }));
        for bytes in [&b""[..], b"plain", b"\xff\x00\x80", "ünï".as_bytes()] {
            assert_eq!(bytes_from_json(&bytes_to_json(bytes)).as_deref(), Some(bytes));
        }
        assert_eq!(bytes_from_json(&json!({ "base64": "aGk=" })), Some(b"hi".to_vec()));
        assert_eq!(bytes_from_json(&json!({ "base64": "***" })), None);
        assert_eq!(bytes_from_json(&json!({ "base64": "aGk=", "x": 1 })), None);
        assert_eq!(bytes_from_json(&json!(12)), None);
        assert_eq!(bytes_from_json(&json!(null)), None);
    }

    #[test]
    fn replies_become_tagged_json() {
        assert_eq!(Reply::Ok.to_json(), json!({ "type": "status", "value": "OK" }));
        assert_eq!(Reply::status("PONG").to_json(), json!({ "type": "status", "value": "PONG" }));
        assert_eq!(Reply::Error("ERR x".into()).to_json(), json!({ "type": "error", "value": "ERR x" }));
        assert_eq!(Reply::Int(-3).to_json(), json!({ "type": "int", "value": -3 }));
        assert_eq!(Reply::bulk(b"\xfe").to_json(), json!({ "type": "bulk", "value": { "base64": "/g==" } }));
        assert_eq!(Reply::Nil.to_json(), json!({ "type": "nil" }));
        assert_eq!(Reply::NilArray.to_json(), json!({ "type": "nil" }));
        assert_eq!(
            Reply::Array(vec![Reply::bulk("a"), Reply::Nil]).to_json(),
            json!({ "type": "array", "value": [{ "type": "bulk", "value": "a" }, { "type": "nil" }] })
        );
        assert_eq!(
            Reply::Map(vec![(Reply::bulk("k"), Reply::Int(1))]).to_json(),
            json!({ "type": "map", "value": [[{ "type": "bulk", "value": "k" }, { "type": "int", "value": 1 }]] })
        );
        assert_eq!(Reply::Set(vec![]).to_json(), json!({ "type": "set", "value": [] }));
        assert_eq!(Reply::Double(1.5).to_json(), json!({ "type": "double", "value": 1.5 }));
        assert_eq!(Reply::Double(f64::INFINITY).to_json(), json!({ "type": "double", "value": "inf" }));
        assert_eq!(Reply::Bool(false).to_json(), json!({ "type": "bool", "value": false }));
        assert_eq!(
            Reply::Verbatim("# Server".into()).to_json(),
            json!({ "type": "verbatim", "format": "txt", "value": "# Server" })
        );
    }
}
