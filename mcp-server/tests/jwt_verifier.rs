//! `JwtVerifier` against a JWKS endpoint on 127.0.0.1 whose keys the test rotates: tokens are
//! ES256 JWTs signed here with ring. A new `kid` refetches the set; a key gone from the set is
//! refused; unknown `kid`s refetch at most once per `min_refetch`; tampered tokens are refused.

#![cfg(feature = "oauth")]

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use bytes::Bytes;
use http_body_util::Full;
use hyper::service::service_fn;
use hyper::Response;
use hyper_util::rt::TokioIo;
use mcp_server::auth::{AuthError, JwtConfig, JwtVerifier, TokenVerifier};
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Value};

const ISSUER: &str = "https://as.test";
const AUDIENCE: &str = "http://127.0.0.1:1/mcp";

/// An ES256 signing key with its `kid`.
struct Key {
    kid: &'static str,
    pair: EcdsaKeyPair,
}

impl Key {
    fn new(kid: &'static str) -> Key {
        let rng = SystemRandom::new();
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("generate");
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .expect("parse");
        Key { kid, pair }
    }

    fn jwk(&self) -> Value {
        let point = self.pair.public_key().as_ref();
        json!({ "kty": "EC", "crv": "P-256", "kid": self.kid, "use": "sig", "alg": "ES256",
                "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..]) })
    }

    /// A token with `claims`, signed by this key but naming `kid` in its header.
    fn sign_as(&self, kid: &str, claims: &Value) -> String {
        let header = json!({ "alg": "ES256", "typ": "at+jwt", "kid": kid });
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .expect("sign");
        format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        )
    }

    fn sign(&self, claims: &Value) -> String {
        self.sign_as(self.kid, claims)
    }
}

fn claims() -> Value {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    json!({ "iss": ISSUER, "sub": "alice", "aud": AUDIENCE, "exp": now + 300,
            "scope": "mcp", "client_id": "app" })
}

/// A JWKS endpoint serving whatever set the test puts in, counting fetches.
struct Jwks {
    url: String,
    set: Arc<Mutex<Value>>,
    fetches: Arc<AtomicUsize>,
}

impl Jwks {
    async fn start(keys: &[&Key]) -> Jwks {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/jwks", listener.local_addr().expect("addr"));
        let set = Arc::new(Mutex::new(Value::Null));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (s, f) = (set.clone(), fetches.clone());
        tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    return;
                };
                let (s, f) = (s.clone(), f.clone());
                tokio::spawn(async move {
                    let svc = service_fn(move |_req| {
                        f.fetch_add(1, Ordering::SeqCst);
                        let body = s.lock().expect("set").to_string();
                        async move { Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(body)))) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tcp), svc)
                        .await;
                });
            }
        });
        let jwks = Jwks { url, set, fetches };
        jwks.publish(keys);
        jwks
    }

    fn publish(&self, keys: &[&Key]) {
        *self.set.lock().expect("set") =
            json!({ "keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>() });
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }

    fn verifier(&self, min_refetch: Duration) -> JwtVerifier {
        JwtVerifier::new(
            JwtConfig::new(ISSUER, AUDIENCE)
                .with_jwks_uri(&self.url)
                .with_min_refetch(min_refetch),
        )
        .expect("verifier")
    }
}

fn refused(result: Result<mcp_server::auth::AuthIdentity, AuthError>) -> String {
    match result {
        Err(AuthError::InvalidToken(why)) => why,
        other => panic!("expected invalid_token, got {other:?}"),
    }
}

#[tokio::test]
async fn key_rotation_refetches_and_drops_old_keys() {
    let (a, b) = (Key::new("a"), Key::new("b"));
    let jwks = Jwks::start(&[&a]).await;
    let verifier = jwks.verifier(Duration::ZERO);
    let identity = verifier.verify(&a.sign(&claims())).await.expect("key a");
    assert_eq!(identity.subject.as_deref(), Some("alice"));
    assert_eq!(identity.scopes, ["mcp"]);
    assert_eq!(jwks.fetches(), 1);
    // Cached: no fetch for the same key.
    verifier
        .verify(&a.sign(&claims()))
        .await
        .expect("key a again");
    assert_eq!(jwks.fetches(), 1);

    // The AS rotates to b: a token with the new kid refetches the set.
    jwks.publish(&[&b]);
    verifier.verify(&b.sign(&claims())).await.expect("key b");
    assert_eq!(jwks.fetches(), 2);
    // a is gone from the set: its tokens are refused once the set no longer has it.
    let why = refused(verifier.verify(&a.sign(&claims())).await);
    assert!(why.contains("no signing key a"), "{why}");

    // Tampering: b's signature under kid b over other claims, or b's signature naming kid a.
    let token = b.sign(&claims());
    let mut parts: Vec<&str> = token.split('.').collect();
    let mut other = claims();
    other["sub"] = json!("mallory");
    let forged_claims = URL_SAFE_NO_PAD.encode(other.to_string());
    parts[1] = &forged_claims;
    assert!(refused(verifier.verify(&parts.join(".")).await).contains("signature"));
    jwks.publish(&[&a, &b]);
    assert!(refused(verifier.verify(&b.sign_as("a", &claims())).await).contains("signature"));
}

#[tokio::test]
async fn unknown_kids_refetch_at_most_once_per_interval() {
    let (a, stranger) = (Key::new("a"), Key::new("c"));
    let jwks = Jwks::start(&[&a]).await;
    let verifier = jwks.verifier(Duration::from_secs(3600));
    verifier.verify(&a.sign(&claims())).await.expect("key a");
    assert_eq!(jwks.fetches(), 1);
    for _ in 0..5 {
        let why = refused(verifier.verify(&stranger.sign(&claims())).await);
        assert!(why.contains("no signing key c"), "{why}");
    }
    // A flood of unknown kids costs the AS nothing more, and known keys still work.
    assert_eq!(jwks.fetches(), 1);
    verifier.verify(&a.sign(&claims())).await.expect("key a");
    assert_eq!(jwks.fetches(), 1);
}
