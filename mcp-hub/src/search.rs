//! Ranking tools for a plain-language query with BM25 (Robertson/Spärck Jones, k1 = 1.2,
//! b = 0.75) over weighted fields: the exposed name (server and tool) counts three times, the
//! title twice, the description and the parameter names once, parameter descriptions and the
//! values of enum parameters half.
//!
//! Words are cut at case changes and non-alphanumerics (`readTextFile`, `read_text_file` and
//! "read text file" all give `read`, `text`, `file`), lower-cased, stripped of common English
//! endings (`files`/`file`, `deleted`/`delete`) and of stop words, the same way for tools and
//! queries; a file name (`notes.txt`) also gives `file`, a host name (`api.example.com`)
//! `domain`. A query word also looks for its common synonyms among tool verbs and the things
//! tools act on (`save` finds `write`, `remove` finds `delete`, `bug` finds `issue`), at a
//! lower weight.

use std::collections::HashMap;

use serde_json::Value;

use super::HubTool;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// The field weights.
const NAME_WEIGHT: f64 = 3.0;
const TITLE_WEIGHT: f64 = 2.0;
const DESCRIPTION_WEIGHT: f64 = 1.0;
const PARAMETER_WEIGHT: f64 = 1.0;
const PARAMETER_DESCRIPTION_WEIGHT: f64 = 0.5;

/// Words that say nothing about what a tool does.
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "by", "at", "from", "is",
    "are", "be", "it", "its", "this", "that", "these", "those", "as", "into", "me", "my", "i",
    "you", "your", "we", "our", "can", "could", "would", "should", "please", "what", "which",
    "who", "how", "do", "does", "some", "any", "all", "if", "then", "than", "so", "use", "used",
    "using", "tool", "tools", "will", "want", "need", "get", "give", "show", "tell", "there",
    "about", "one", "s", "t", "many", "much", "like", "right", "now", "just", "every", "here",
    "up", "out", "over", "next", "last",
];

/// How much a synonym of a query word counts, against 1 for the word itself.
const SYNONYM_WEIGHT: f64 = 0.6;

/// Groups of words that name the same action or thing in tool names and plain requests.
const SYNONYMS: &[&[&str]] = &[
    &["write", "save", "store", "put"],
    &["delete", "remove", "erase", "destroy", "drop"],
    &["search", "find", "lookup", "look", "query", "seek"],
    &["list", "enumerate", "browse"],
    &[
        "create", "make", "add", "new", "open", "submit", "raise", "post", "schedule", "book",
        "spin", "setup", "register", "log", "take",
    ],
    &["fetch", "retrieve", "download", "read", "load"],
    &[
        "update", "modify", "change", "edit", "alter", "set", "mark", "adjust",
    ],
    &["run", "execute", "exec", "invoke", "launch", "start"],
    &["stop", "cancel", "terminate", "kill", "halt"],
    &["send", "post", "deliver"],
    &["move", "rename", "relocate"],
    &["copy", "duplicate", "clone"],
    &["directory", "folder", "dir"],
    &["file", "document", "doc"],
    &["message", "msg", "chat"],
    &["user", "person", "member", "people"],
    &["picture", "image", "photo"],
    &["sum", "add", "plus", "total"],
    &["forecast", "prediction", "outlook"],
    &[
        "access",
        "permission",
        "grant",
        "privilege",
        "role",
        "rights",
    ],
    &[
        "attendee",
        "guest",
        "participant",
        "invitee",
        "attend",
        "coming",
        "invite",
        "rsvp",
    ],
    &["issue", "bug", "ticket", "defect", "incident"],
    &["event", "meeting", "appointment"],
    &[
        "status",
        "presence",
        "away",
        "busy",
        "online",
        "offline",
        "available",
    ],
    &["dns", "domain", "hostname", "host"],
    &["expense", "receipt", "reimbursement", "reimburse"],
    &["temperature", "weather", "hot", "cold"],
    &["content", "contents", "inside", "contain", "text"],
    &[
        "currency", "money", "euro", "dollar", "yen", "pound", "usd", "eur", "gbp", "exchange",
    ],
];

/// One ranked tool: its position in the list the index was built from, and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchHit {
    /// The index of the tool in the slice given to [`ToolIndex::new`].
    pub index: usize,
    /// Its BM25 score (higher is better; only positive scores are returned).
    pub score: f64,
}

/// A BM25 index over a list of tools, built once and queried many times.
#[derive(Debug, Clone, Default)]
pub struct ToolIndex {
    /// Weighted term frequencies per tool.
    docs: Vec<HashMap<String, f64>>,
    /// Weighted length per tool.
    lengths: Vec<f64>,
    /// In how many tools each term occurs.
    document_frequency: HashMap<String, usize>,
    average_length: f64,
}

impl ToolIndex {
    /// Indexes the tools.
    pub fn new(tools: &[HubTool]) -> Self {
        let mut index = ToolIndex::default();
        for tool in tools {
            let mut tf: HashMap<String, f64> = HashMap::new();
            let mut add = |text: &str, weight: f64| {
                for term in terms(text) {
                    *tf.entry(term).or_default() += weight;
                }
            };
            add(&tool.exposed, NAME_WEIGHT);
            if let Some(title) = tool.tool.title.as_deref().or(tool
                .tool
                .annotations
                .as_ref()
                .and_then(|a| a.title.as_deref()))
            {
                add(title, TITLE_WEIGHT);
            }
            add(&tool.description, DESCRIPTION_WEIGHT);
            if let Some(Value::Object(properties)) = tool.tool.input_schema.get("properties") {
                for (name, schema) in properties {
                    add(name, PARAMETER_WEIGHT);
                    if let Some(text) = schema.get("description").and_then(Value::as_str) {
                        add(text, PARAMETER_DESCRIPTION_WEIGHT);
                    }
                    // The values a parameter takes say what the tool can do (`role`: `write`).
                    for value in enum_values(schema) {
                        add(value, PARAMETER_DESCRIPTION_WEIGHT);
                    }
                }
            }
            for term in tf.keys() {
                *index.document_frequency.entry(term.clone()).or_default() += 1;
            }
            index.lengths.push(tf.values().sum());
            index.docs.push(tf);
        }
        let n = index.docs.len().max(1) as f64;
        index.average_length = index.lengths.iter().sum::<f64>() / n;
        index
    }

    /// How many tools are indexed.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The best `limit` tools for `query`, best first; ties keep list order. Tools sharing no
    /// word with the query are not returned.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        let query_terms = expand_query(query);
        let n = self.docs.len() as f64;
        let mut hits: Vec<SearchHit> = self
            .docs
            .iter()
            .zip(&self.lengths)
            .enumerate()
            .filter_map(|(index, (tf, &length))| {
                let mut score = 0.0;
                for (term, weight) in &query_terms {
                    let Some(&f) = tf.get(term) else { continue };
                    let df = self.document_frequency.get(term).copied().unwrap_or(0) as f64;
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    let norm = K1 * (1.0 - B + B * length / self.average_length.max(1e-9));
                    score += weight * idf * f * (K1 + 1.0) / (f + norm);
                }
                (score > 0.0).then_some(SearchHit { index, score })
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
        hits.truncate(limit);
        hits
    }
}

/// The string values of a parameter's `enum`, also when it is nullable (`anyOf` with null).
fn enum_values(schema: &Value) -> impl Iterator<Item = &str> {
    let direct = schema.get("enum").and_then(Value::as_array);
    let nested = schema
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("enum").and_then(Value::as_array));
    direct
        .into_iter()
        .chain(nested)
        .flatten()
        .filter_map(Value::as_str)
        // Bounded: a long enum is a list of data (country codes), not of capabilities.
        .take(MAX_ENUM_VALUES)
}

/// At most this many enum values of a parameter are indexed.
const MAX_ENUM_VALUES: usize = 16;

/// A query's terms with their weights: its own words at 1, their synonyms lower.
fn expand_query(query: &str) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    let own = terms(query);
    for term in &own {
        if !out.iter().any(|(t, _)| t == term) {
            out.push((term.clone(), 1.0));
        }
    }
    for term in &own {
        for group in SYNONYMS {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            if !stems.contains(term) {
                continue;
            }
            for synonym in stems {
                if !out.iter().any(|(t, _)| *t == synonym) {
                    out.push((synonym, SYNONYM_WEIGHT));
                }
            }
        }
    }
    out
}

/// The search terms of a text: words cut at case changes and non-alphanumerics, lower-cased,
/// stemmed, stop words left out.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for chunk in text.split_whitespace() {
        if is_file_name(chunk) {
            // `notes.txt`, `.log`: the request is about a file, whatever it is called.
            out.push(stem("file"));
        } else if is_host_name(chunk) {
            // `www.example.org`: the request is about a domain, and names its parts too.
            out.push(stem("domain"));
            words(chunk, &mut out);
        } else {
            words(chunk, &mut out);
        }
    }
    out
}

/// File extensions that make a word a file name.
const FILE_EXTENSIONS: &[&str] = &[
    "txt", "md", "pdf", "json", "csv", "log", "py", "rs", "js", "ts", "html", "xml", "yaml", "yml",
    "toml", "png", "jpg", "jpeg", "gif", "svg", "doc", "docx", "xlsx", "zip", "tar", "gz", "sh",
    "sql",
];

/// Whether a whitespace-separated word is a file name (`notes.txt`, `.log`).
fn is_file_name(chunk: &str) -> bool {
    let chunk = chunk.trim_end_matches([',', '.', ';', ':', '!', '?', ')', '"', '\'']);
    let chunk = chunk.trim_start_matches(['(', '"', '\'']);
    let Some((base, extension)) = chunk.rsplit_once('.') else {
        return false;
    };
    !base.contains('.')
        && base
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        && FILE_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
}

/// Top-level domains that make a dotted word a host name.
const TOP_LEVEL_DOMAINS: &[&str] = &[
    "com", "org", "net", "io", "dev", "app", "ai", "co", "uk", "de", "fr", "eu", "us", "info",
    "edu", "gov", "local", "internal",
];

/// Whether a whitespace-separated word is a host name (`api.example.com`, `www.example.org`):
/// dotted labels of letters, digits and hyphens, a known top-level domain last.
fn is_host_name(chunk: &str) -> bool {
    let chunk = chunk.trim_end_matches([',', '.', ';', ':', '!', '?', ')', '"', '\'']);
    let chunk = chunk.trim_start_matches(['(', '"', '\'']);
    let labels: Vec<&str> = chunk.split('.').collect();
    labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        && labels
            .last()
            .is_some_and(|tld| TOP_LEVEL_DOMAINS.contains(&tld.to_ascii_lowercase().as_str()))
}

/// The terms of one whitespace-free chunk, appended to `out`.
fn words(text: &str, out: &mut Vec<String>) {
    let mut word = String::new();
    let mut previous: Option<char> = None;
    let flush = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            let lower = word.to_lowercase();
            if !STOP_WORDS.contains(&lower.as_str()) {
                let stem = stem(&lower);
                if !stem.is_empty() {
                    out.push(stem);
                }
            }
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            // `readText` → `read`, `Text`; `HTTPServer` stays one word (no lower→upper change).
            let boundary = previous.is_some_and(|p| {
                (p.is_lowercase() && c.is_uppercase())
                    || (p.is_alphabetic() && c.is_numeric())
                    || (p.is_numeric() && c.is_alphabetic())
            });
            if boundary {
                flush(&mut word, out);
            }
            word.push(c);
        } else {
            flush(&mut word, out);
        }
        previous = Some(c);
    }
    flush(&mut word, out);
}

/// A light English stemmer: plural and verb endings, then a final `e`, so that `files`,
/// `file`, `deleting` and `deleted` meet their base word.
fn stem(word: &str) -> String {
    if word.len() <= 3 || !word.is_ascii() {
        return word.to_owned();
    }
    let mut w = word.to_owned();
    if let Some(base) = w.strip_suffix("ies") {
        w = format!("{base}y");
    } else if w.ends_with("sses") || (w.ends_with("es") && !w.ends_with("ses")) {
        // `processes` → `process`, `files` → `fil` (a final `e` goes below anyway).
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") {
        w.truncate(w.len() - 1);
    }
    if w.len() > 5 && w.ends_with("ing") {
        w.truncate(w.len() - 3);
    } else if w.len() > 4 && w.ends_with("ed") {
        w.truncate(w.len() - 2);
    }
    if w.len() > 3 && w.ends_with('e') {
        w.truncate(w.len() - 1);
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_proto::schema::Tool;
    use serde_json::json;

    fn tool(server: &str, name: &str, description: &str, params: &[&str]) -> HubTool {
        let properties: serde_json::Map<String, Value> = params
            .iter()
            .map(|p| (p.to_string(), json!({"type": "string"})))
            .collect();
        HubTool {
            exposed: format!("{server}__{name}"),
            server: server.into(),
            description: description.into(),
            tool: Tool::new(name, description)
                .with_input_schema(json!({"type": "object", "properties": properties})),
        }
    }

    #[test]
    fn words_are_cut_lowered_and_stemmed() {
        assert_eq!(terms("readTextFile"), ["read", "text", "fil"]);
        assert_eq!(terms("read_text_files"), ["read", "text", "fil"]);
        assert_eq!(terms("Deleted the FILES!"), ["delet", "fil"]);
        assert_eq!(terms("deleting"), ["delet"]);
        assert_eq!(terms("directories"), ["directory"]);
        assert_eq!(terms("utf8"), ["utf", "8"]);
        assert!(terms("the of and").is_empty());
        // A file name stands for "file"; a host name does not.
        assert_eq!(terms("open notes.txt, then .log"), ["open", "fil", "fil"]);
        // A host name stands for a domain and keeps its parts.
        assert_eq!(terms("api.example.com"), ["domain", "api", "exampl", "com"]);
        assert_eq!(terms("example.com"), ["domain", "exampl", "com"]);
        assert_eq!(terms("v1.4 e.g."), ["v", "1", "4", "e", "g"]);
    }

    #[test]
    fn ranks_the_matching_tool_first() {
        let tools = vec![
            tool(
                "weather",
                "get_weather",
                "Current weather in a city",
                &["city"],
            ),
            tool(
                "fs",
                "read_text_file",
                "Read a text file from disk",
                &["path"],
            ),
            tool(
                "fs",
                "write_file",
                "Write a file to disk",
                &["path", "content"],
            ),
            tool(
                "fs",
                "list_directory",
                "List the entries of a directory",
                &["path"],
            ),
        ];
        let index = ToolIndex::new(&tools);
        assert_eq!(index.len(), 4);
        let hits = index.search("what is the weather in Paris", 3);
        assert_eq!(hits[0].index, 0, "{hits:?}");
        let hits = index.search("show me the files in a folder directory", 3);
        assert_eq!(hits[0].index, 3, "{hits:?}");
        let hits = index.search("save text content into a file", 3);
        assert_eq!(hits[0].index, 2, "{hits:?}");
        assert!(index.search("zebra", 3).is_empty());
        assert_eq!(index.search("file", 1).len(), 1);
    }
}
