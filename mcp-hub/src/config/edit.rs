//! What adding and removing servers needs: validation of a new server (refusals that say how
//! to fix them, warnings for what is only odd) and atomic writes of the file.

use std::path::Path;

use super::{ServerConfig, TransportConfig};

/// Writes `bytes` to a temporary file in the same folder, syncs it, and renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config".into());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Checks a server a user is about to add, as Cline validates: what is refused says how to fix
/// it; what is only odd comes back as warnings.
pub fn validate_new_server(server: &ServerConfig) -> Result<Vec<String>, String> {
    let mut warnings = Vec::new();
    let name = &server.name;
    if name.trim().is_empty() {
        return Err("the server name is empty; give it a name like \"weather\"".into());
    }
    match &server.transport {
        TransportConfig::Stdio { command, env, .. } => {
            if command.trim().is_empty() {
                return Err(
                    "a stdio server needs a command: mcp add NAME -- COMMAND ARGS...".into(),
                );
            }
            for value in env.values() {
                if looks_like_placeholder(value) {
                    warnings.push(format!("environment value {value:?} looks like a placeholder; replace it with the real value"));
                }
            }
        }
        TransportConfig::Sse { url, headers }
        | TransportConfig::StreamableHttp { url, headers } => {
            let lower = url.to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://")) {
                return Err(format!(
                    "the URL {url:?} must start with http:// or https://"
                ));
            }
            if url.len() <= "https://".len() {
                return Err(format!("the URL {url:?} has no host"));
            }
            if looks_like_placeholder(url) {
                warnings.push(format!(
                    "the URL {url:?} looks like a placeholder; replace it with the real address"
                ));
            }
            for (header, value) in headers {
                validate_header_name(header)?;
                if looks_like_placeholder(value) {
                    warnings.push(format!(
                        "header {header}: {value:?} looks like a placeholder; replace it with the real value"
                    ));
                }
            }
        }
    }
    Ok(warnings)
}

/// Parses `Name: value` into a header pair with an RFC 7230 token as its name.
pub fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once(':').ok_or_else(|| {
        format!(
            "header {text:?} must look like \"Name: value\", e.g. \"Authorization: Bearer TOKEN\""
        )
    })?;
    let name = name.trim();
    validate_header_name(name)?;
    Ok((name.to_owned(), value.trim().to_owned()))
}

pub(super) fn validate_header_name(name: &str) -> Result<(), String> {
    const TCHAR: &str = "!#$%&'*+-.^_`|~";
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || TCHAR.contains(c))
    {
        return Err(format!(
            "header name {name:?} is not a valid HTTP token; use letters, digits and !#$%&'*+-.^_`|~ only, e.g. \"X-Api-Key\""
        ));
    }
    Ok(())
}

pub(super) fn looks_like_placeholder(value: &str) -> bool {
    let v = value.trim();
    (v.contains('<') && v.contains('>'))
        || v.contains("YOUR_")
        || v.contains("your-")
        || v.eq_ignore_ascii_case("token")
        || v.contains("xxxx")
}
