//! Running protected (`--auth-issuer`): weather-server as an OAuth 2.1 resource server. Tokens
//! are JWT access tokens of the issuer, checked against its JWKS; their audience must be this
//! server's `/mcp` URL. Without `--auth-issuer` nothing here runs and the server is open.

use std::net::SocketAddr;

use mcp_server::auth::{JwtConfig, JwtVerifier, ProtectedResourceMetadata};
use mcp_server::http::AuthConfig;

/// The `--auth-*` options.
#[derive(Debug, Default)]
pub struct AuthArgs {
    /// `--auth-issuer URL`: the authorization server whose tokens are accepted.
    pub issuer: Option<String>,
    /// `--auth-audience URL` (repeatable): the audiences accepted; the first is the resource
    /// named in the metadata.
    pub audiences: Vec<String>,
    /// `--auth-required-scope SCOPE` (repeatable): scopes every request needs.
    pub required_scopes: Vec<String>,
    /// `--auth-tool-scope TOOL=SCOPE` (repeatable): scopes a tool's calls need.
    pub tool_scopes: Vec<(String, String)>,
    /// `--auth-leeway SECS`: clock skew allowed on `exp`/`nbf` (default 60).
    pub leeway: Option<std::time::Duration>,
}

impl AuthArgs {
    /// Takes one `--auth-*` option and its value; `Ok(false)` when `name` is not one.
    pub fn take(
        &mut self,
        name: &str,
        value: impl FnOnce() -> Result<String, String>,
    ) -> Result<bool, String> {
        match name {
            "--auth-issuer" => self.issuer = Some(value()?),
            "--auth-audience" => self.audiences.push(value()?),
            "--auth-required-scope" => self.required_scopes.push(value()?),
            "--auth-tool-scope" => {
                let v = value()?;
                let (tool, scope) = v
                    .split_once('=')
                    .filter(|(t, s)| !t.is_empty() && !s.is_empty())
                    .ok_or_else(|| format!("--auth-tool-scope {v:?}: expected TOOL=SCOPE"))?;
                self.tool_scopes.push((tool.to_owned(), scope.to_owned()));
            }
            "--auth-leeway" => {
                let v = value()?;
                let secs: u64 = v
                    .parse()
                    .map_err(|_| format!("--auth-leeway {v:?}: expected whole seconds"))?;
                self.leeway = Some(std::time::Duration::from_secs(secs));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Whether the server runs protected.
    pub fn enabled(&self) -> bool {
        self.issuer.is_some()
    }

    /// The HTTP authorization for a server listening on `addr`: discovers the issuer's keys
    /// (RFC 8414 / OpenID discovery). Without `--auth-audience`, tokens for `http://NAME:PORT/mcp`
    /// with NAME any loopback name (for a loopback bind) or the bound address are accepted, and
    /// the metadata names the URL the client used.
    pub async fn config(&self, addr: SocketAddr) -> Result<Option<AuthConfig>, String> {
        let Some(issuer) = &self.issuer else {
            return Ok(None);
        };
        let audiences = if self.audiences.is_empty() {
            let port = addr.port();
            if addr.ip().is_loopback() {
                vec![
                    format!("http://127.0.0.1:{port}/mcp"),
                    format!("http://localhost:{port}/mcp"),
                    format!("http://[::1]:{port}/mcp"),
                ]
            } else {
                vec![format!("http://{addr}/mcp")]
            }
        } else {
            self.audiences.clone()
        };
        let mut jwt = JwtConfig::new(issuer.clone(), audiences[0].clone());
        jwt.audiences = audiences;
        if let Some(leeway) = self.leeway {
            jwt = jwt.with_leeway(leeway);
        }
        let verifier = JwtVerifier::discover(jwt)
            .await
            .map_err(|e| format!("--auth-issuer {issuer}: cannot find its signing keys: {e}"))?;
        // An empty resource is filled per request from the Host the client used.
        let resource = self.audiences.first().cloned().unwrap_or_default();
        let mut scopes: Vec<String> = self.required_scopes.clone();
        for (_, scope) in &self.tool_scopes {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        let mut auth = AuthConfig::new(verifier)
            .with_metadata(
                ProtectedResourceMetadata::new(resource, issuer.clone()).with_scopes(scopes),
            )
            .require_scopes(self.required_scopes.clone());
        for (tool, scope) in &self.tool_scopes {
            let mut needed = auth.tool_scopes.get(tool).cloned().unwrap_or_default();
            needed.push(scope.clone());
            auth = auth.tool_scopes(tool.clone(), needed);
        }
        Ok(Some(auth))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<AuthArgs, String> {
        let mut auth = AuthArgs::default();
        let mut it = args.iter().map(|s| s.to_string());
        while let Some(name) = it.next() {
            let taken = auth.take(&name, || {
                it.next().ok_or_else(|| format!("{name}: no value"))
            })?;
            assert!(taken, "{name} is an --auth-* option");
        }
        Ok(auth)
    }

    #[test]
    fn auth_options() {
        let auth = parse(&[
            "--auth-issuer",
            "http://127.0.0.1:9",
            "--auth-audience",
            "http://a/mcp",
            "--auth-required-scope",
            "mcp",
            "--auth-tool-scope",
            "get_forecast=weather:admin",
            "--auth-leeway",
            "5",
        ])
        .expect("parses");
        assert!(auth.enabled());
        assert_eq!(auth.audiences, ["http://a/mcp"]);
        assert_eq!(auth.required_scopes, ["mcp"]);
        assert_eq!(
            auth.tool_scopes,
            [("get_forecast".into(), "weather:admin".into())]
        );
        assert_eq!(auth.leeway, Some(std::time::Duration::from_secs(5)));
        assert!(parse(&["--auth-tool-scope", "no-equals"]).is_err());
        assert!(parse(&["--auth-tool-scope", "=scope"]).is_err());
        assert!(parse(&["--auth-leeway", "soon"]).is_err());
        assert!(!AuthArgs::default().enabled());
        let mut other = AuthArgs::default();
        assert_eq!(other.take("--http", || Ok(String::new())), Ok(false));
    }
}
