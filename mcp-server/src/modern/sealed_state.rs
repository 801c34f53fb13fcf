//! The MRTR `requestState`, sealed: the answers a request has collected so far, the request they
//! belong to and an expiry, signed with HMAC-SHA-256 under the server's key. A client can only
//! echo it; a forged, altered, expired or misplaced state is refused. Any replica holding the
//! same key opens it, so a retry may land anywhere.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use mcp_proto::schema::InputResponses;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::error::ServerError;

/// The largest `requestState` accepted, in bytes (checked before anything is decoded).
pub(crate) const MAX_SEALED_LEN: usize = 1024 * 1024;

/// The key request states are sealed with. Replicas that share it resume each other's requests.
#[derive(Clone)]
pub(crate) struct SealKey(Vec<u8>);

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(..)")
    }
}

impl SealKey {
    /// A key given by the operator (shared across replicas).
    pub(crate) fn new(key: impl Into<Vec<u8>>) -> Self {
        SealKey(key.into())
    }

    /// A fresh random key for this process: states survive only while it runs.
    pub(crate) fn random() -> Self {
        SealKey(random_bytes())
    }

    fn mac(&self) -> Hmac<Sha256> {
        // HMAC takes a key of any length; `new_from_slice` cannot fail for it.
        <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"))
    }
}

/// 32 bytes from the OS: `/dev/urandom`, else std's per-process random hasher seeds.
fn random_bytes() -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::io::Read;
        let mut bytes = vec![0u8; 32];
        if std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut bytes))
            .is_ok()
        {
            return bytes;
        }
    }
    use std::hash::{BuildHasher, Hasher};
    (0..4)
        .flat_map(|i: u64| {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(i);
            h.finish().to_le_bytes()
        })
        .collect()
}

/// What a sealed state says.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StateBody {
    /// Format version.
    v: u8,
    /// Expiry, seconds since the Unix epoch.
    exp: u64,
    /// The method of the request the state belongs to.
    m: String,
    /// The tool or prompt name, or the resource URI.
    t: String,
    /// Every answer collected so far, by input key.
    pub(crate) a: InputResponses,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Seals `answers` for the request `method` on `target`, valid for `ttl`.
pub(crate) fn seal(
    key: &SealKey,
    method: &str,
    target: &str,
    answers: &InputResponses,
    ttl: Duration,
) -> Result<String, ServerError> {
    #[derive(Serialize)]
    struct Out<'a> {
        v: u8,
        exp: u64,
        m: &'a str,
        t: &'a str,
        a: &'a InputResponses,
    }
    let body = serde_json::to_vec(&Out {
        v: 1,
        exp: now_secs().saturating_add(ttl.as_secs().max(1)),
        m: method,
        t: target,
        a: answers,
    })
    .map_err(|e| ServerError::handler(format!("could not encode the request state: {e}")))?;
    let mut mac = key.mac();
    mac.update(&body);
    let tag = mac.finalize().into_bytes();
    let sealed = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(&body),
        URL_SAFE_NO_PAD.encode(tag)
    );
    if sealed.len() > MAX_SEALED_LEN {
        return Err(ServerError::handler(format!(
            "the answers collected for this request exceed {MAX_SEALED_LEN} bytes"
        )));
    }
    Ok(sealed)
}

/// Opens a state the client echoed for the request `method` on `target`: checks its size, its
/// seal (in constant time), its expiry and that it belongs to this request.
pub(crate) fn open(
    key: &SealKey,
    sealed: &str,
    method: &str,
    target: &str,
) -> Result<StateBody, ServerError> {
    let refuse = |why: &str| ServerError::InvalidRequestState(why.to_owned());
    if sealed.len() > MAX_SEALED_LEN {
        return Err(refuse("too long"));
    }
    let (body, tag) = sealed
        .split_once('.')
        .ok_or_else(|| refuse("not a state this server issued"))?;
    let body = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| refuse("not a state this server issued"))?;
    let tag = URL_SAFE_NO_PAD
        .decode(tag)
        .map_err(|_| refuse("not a state this server issued"))?;
    let mut mac = key.mac();
    mac.update(&body);
    mac.verify_slice(&tag)
        .map_err(|_| refuse("its signature does not match (forged or altered)"))?;
    let state: StateBody =
        serde_json::from_slice(&body).map_err(|_| refuse("unreadable contents"))?;
    if state.v != 1 {
        return Err(refuse("unknown format"));
    }
    if state.exp < now_secs() {
        return Err(refuse("expired; send the request again without it"));
    }
    if state.m != method || state.t != target {
        return Err(refuse("it belongs to another request"));
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_proto::schema::{ElicitResult, InputResponse};

    fn answers() -> InputResponses {
        let mut a = InputResponses::new();
        let accept: ElicitResult = serde_json::from_value(serde_json::json!({"action": "accept",
            "content": {"city": "Springfield, IL"}}))
        .unwrap();
        a.insert("elicit-0".into(), InputResponse::Elicitation(accept));
        a
    }

    #[test]
    fn round_trip_and_refusals() {
        let key = SealKey::new(b"k".to_vec());
        let hour = Duration::from_secs(3600);
        let sealed = seal(&key, "tools/call", "t", &answers(), hour).unwrap();
        let opened = open(&key, &sealed, "tools/call", "t").unwrap();
        assert_eq!(opened.a, answers());
        // Another key, another request, an altered body, garbage.
        assert!(open(&SealKey::new(b"other".to_vec()), &sealed, "tools/call", "t").is_err());
        assert!(open(&key, &sealed, "tools/call", "u").is_err());
        assert!(open(&key, &sealed, "prompts/get", "t").is_err());
        let (body, tag) = sealed.split_once('.').unwrap();
        let mut forged = URL_SAFE_NO_PAD.decode(body).unwrap();
        forged[10] ^= 1;
        let forged = format!("{}.{tag}", URL_SAFE_NO_PAD.encode(forged));
        assert!(open(&key, &forged, "tools/call", "t").is_err());
        assert!(open(&key, "x.y", "tools/call", "t").is_err());
        assert!(open(&key, "", "tools/call", "t").is_err());
    }

    #[test]
    fn expired_states_are_refused() {
        let key = SealKey::random();
        let mut body = StateBody {
            v: 1,
            exp: 1,
            m: "tools/call".into(),
            t: "t".into(),
            a: answers(),
        };
        let raw = serde_json::to_vec(&body).unwrap();
        let mut mac = key.mac();
        mac.update(&raw);
        let tag = mac.finalize().into_bytes();
        let sealed = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&raw),
            URL_SAFE_NO_PAD.encode(tag)
        );
        let err = open(&key, &sealed, "tools/call", "t").unwrap_err();
        assert!(err.to_string().contains("expired"), "{err}");
        body.exp = u64::MAX;
        assert_ne!(body.exp, 1);
    }
}
