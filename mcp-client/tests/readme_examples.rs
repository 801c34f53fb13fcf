//! README's server and client are the examples that compile: each Rust block of README.md must
//! be, token for token (white space aside), the code of `mcp-server/examples/minimal.rs` and
//! `mcp-client/examples/minimal.rs` below their doc comments.

use std::path::Path;

/// The text with every white-space character and every `//` comment line taken out.
fn tokens(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .flat_map(|line| line.chars().filter(|c| !c.is_whitespace()))
        .collect()
}

/// The Rust code blocks of a Markdown text, in order.
fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```rust") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn readme_blocks_are_the_minimal_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |path: &str| {
        std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let readme = read("README.md");
    let blocks = rust_blocks(&readme);
    assert_eq!(blocks.len(), 2, "README has a server and a client block");
    for (block, example) in blocks.iter().zip([
        "mcp-server/examples/minimal.rs",
        "mcp-client/examples/minimal.rs",
    ]) {
        assert_eq!(
            tokens(block),
            tokens(&read(example)),
            "README's block differs from {example}"
        );
    }
}
