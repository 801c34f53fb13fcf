//! The chat prompt: rustyline (line editing, history kept in
//! `$XDG_STATE_HOME/mcp/chat_history` or `~/.local/state/mcp/chat_history`) on a thread of its
//! own, since reading the terminal blocks.

use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;
use tokio::sync::{mpsc, oneshot};

/// What reading a line gave.
pub enum ReadLine {
    /// A line.
    Line(String),
    /// Ctrl-C at the prompt.
    Interrupted,
    /// Ctrl-D or the end of input.
    End,
}

/// The prompt's thread.
pub struct LineEditor {
    requests: mpsc::Sender<(String, oneshot::Sender<ReadLine>)>,
}

fn history_path() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(state.join("mcp").join("chat_history"))
}

impl LineEditor {
    /// Starts the thread.
    pub fn start() -> Self {
        let (requests, mut incoming) = mpsc::channel::<(String, oneshot::Sender<ReadLine>)>(1);
        std::thread::spawn(move || {
            let mut editor = DefaultEditor::new().ok();
            let history = history_path();
            if let (Some(editor), Some(path)) = (editor.as_mut(), &history) {
                let _ = editor.load_history(path);
            }
            while let Some((prompt, reply)) = incoming.blocking_recv() {
                let read = match editor.as_mut() {
                    Some(editor) => match editor.readline(&prompt) {
                        Ok(line) => {
                            if !line.trim().is_empty() {
                                let _ = editor.add_history_entry(line.as_str());
                                if let Some(path) = &history {
                                    if let Some(dir) = path.parent() {
                                        let _ = std::fs::create_dir_all(dir);
                                    }
                                    let _ = editor.save_history(path);
                                }
                            }
                            ReadLine::Line(line)
                        }
                        Err(ReadlineError::Interrupted) => ReadLine::Interrupted,
                        Err(_) => ReadLine::End,
                    },
                    None => plain_line(&prompt),
                };
                let _ = reply.send(read);
            }
        });
        LineEditor { requests }
    }

    /// Reads a line after `prompt`.
    pub async fn read(&mut self, prompt: &str) -> ReadLine {
        let (reply, answer) = oneshot::channel();
        if self
            .requests
            .send((prompt.to_owned(), reply))
            .await
            .is_err()
        {
            return ReadLine::End;
        }
        answer.await.unwrap_or(ReadLine::End)
    }
}

/// Without a usable terminal editor: a plain line from stdin.
fn plain_line(prompt: &str) -> ReadLine {
    use std::io::Write;
    eprint!("{prompt}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match std::io::stdin().read_line(&mut line) {
        Ok(0) | Err(_) => ReadLine::End,
        Ok(_) => ReadLine::Line(line.trim_end_matches(['\n', '\r']).to_owned()),
    }
}
