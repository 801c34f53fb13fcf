//! `mcp chat` at the terminal: the answer streamed to stdout; reasoning (dimmed), a line per
//! tool call (exposed name, short arguments, a progress bar while progress arrives, then
//! duration and outcome) and errors to stderr; and the questions a turn puts to the user
//! (approval, elicitation forms, sampling) asked on stderr and read from stdin one at a time.

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

use mcp_agent::{AgentEvent, Human, StopReason};
use mcp_hub::Decision;
use mcp_proto::schema::{ElicitParams, ElicitResult};
use serde_json::{Map, Value};

use super::form;

const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const RESET: &str = "\x1b[0m";
/// How much of a call's arguments a line shows.
const SHORT: usize = 80;
/// How much of a failed call's error a line shows.
const ERROR_SHORT: usize = 240;

/// Cuts `text` to `max` characters on one line.
fn short(text: &str, max: usize) -> String {
    let line: String = text.replace(['\n', '\r'], " ");
    if line.chars().count() <= max {
        return line;
    }
    let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Writes a turn's events for a person.
pub struct Renderer {
    color: bool,
    /// The answer's last line has no newline yet.
    text_open: bool,
    /// Reasoning is being shown (dimmed) and its line is open.
    reasoning_open: bool,
    /// A progress bar is drawn on the last stderr line.
    bar_shown: bool,
    /// The names of the calls by id.
    names: std::collections::HashMap<String, String>,
}

impl Renderer {
    /// A renderer; colours and redrawn bars only when stderr is a terminal.
    pub fn new() -> Self {
        Renderer {
            color: std::io::stderr().is_terminal(),
            text_open: false,
            reasoning_open: false,
            bar_shown: false,
            names: Default::default(),
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_owned()
        }
    }

    /// Ends what is open (the answer's line, reasoning, a bar) before a line of stderr.
    fn settle(&mut self) {
        if self.bar_shown {
            eprint!("\r\x1b[2K");
            self.bar_shown = false;
        }
        if self.reasoning_open {
            eprintln!();
            self.reasoning_open = false;
        }
        if self.text_open {
            outln!();
            self.text_open = false;
        }
    }

    /// A line on stderr, after what is open.
    pub fn note(&mut self, line: &str) {
        self.settle();
        eprintln!("{line}");
    }

    /// An error line.
    pub fn error(&mut self, message: &str) {
        let line = self.paint(RED, &format!("mcp: {message}"));
        self.note(&line);
    }

    /// Shows one event.
    pub fn show(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::TextDelta { text } => {
                if self.bar_shown || self.reasoning_open {
                    let open = self.text_open;
                    self.settle();
                    self.text_open = open;
                }
                out!("{text}");
                let _ = std::io::stdout().flush();
                self.text_open = !text.ends_with('\n');
            }
            AgentEvent::ReasoningDelta { text } => {
                if !self.reasoning_open {
                    self.settle();
                    self.reasoning_open = true;
                }
                eprint!("{}", self.paint(DIM, text));
            }
            AgentEvent::ToolCallStarted {
                id,
                name,
                arguments,
            } => {
                self.names.insert(id.clone(), name.clone());
                let args = match arguments {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let line = format!("⚙ {name} {}", short(&args, SHORT));
                self.note(&line);
            }
            AgentEvent::ToolProgress {
                id,
                progress,
                total,
                message,
            } => {
                let name = self.names.get(id).cloned().unwrap_or_default();
                let bar = crate::output::progress_bar(*progress, *total, 20);
                let text = format!(
                    "  {name} {bar} {}",
                    short(message.as_deref().unwrap_or(""), 40)
                );
                if self.color {
                    self.settle();
                    eprint!("{}", self.paint(DIM, &text));
                    self.bar_shown = true;
                } else {
                    self.note(&text);
                }
            }
            AgentEvent::ToolCallFinished {
                name,
                duration_ms,
                is_error,
                output,
                ..
            } => {
                let line = if *is_error {
                    self.paint(
                        RED,
                        &format!(
                            "  ✗ {name} failed after {duration_ms} ms: {}",
                            short(output, ERROR_SHORT)
                        ),
                    )
                } else {
                    self.paint(GREEN, &format!("  ✓ {name} {duration_ms} ms"))
                };
                self.note(&line);
            }
            AgentEvent::TurnFinished {
                reason,
                steps,
                error,
                ..
            } => {
                self.settle();
                match reason {
                    StopReason::Completed => {}
                    StopReason::MaxSteps => self.error(&format!(
                        "stopped after {steps} steps (the step limit; raise it with --max-steps)"
                    )),
                    StopReason::Budget => self.error("stopped: the turn's time budget ran out"),
                    StopReason::Cancelled => self.note("(cancelled)"),
                    StopReason::Error => self.error(error.as_deref().unwrap_or("the model failed")),
                }
            }
            _ => {}
        }
    }
}

/// Questions put to the user one at a time, read from stdin (a blocking read on its own thread).
#[derive(Clone)]
pub struct Asker {
    lock: Arc<tokio::sync::Mutex<()>>,
    interactive: bool,
}

impl Asker {
    /// An asker; it asks only when stdin and stderr are terminals.
    pub fn new() -> Self {
        Asker {
            lock: Arc::new(tokio::sync::Mutex::new(())),
            interactive: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
        }
    }

    /// Prints `question` on stderr and reads a line; `None` at end of input.
    async fn read(question: String) -> Option<String> {
        tokio::task::spawn_blocking(move || {
            eprint!("{question}");
            let _ = std::io::stderr().flush();
            let mut line = String::new();
            match std::io::stdin().read_line(&mut line) {
                Ok(0) | Err(_) => None,
                Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
            }
        })
        .await
        .ok()
        .flatten()
    }

    /// Approval of a call: `y`, `n`, or `a` (always for this tool in this session).
    async fn approve(
        &self,
        always: &Mutex<HashSet<String>>,
        exposed: &str,
        arguments: &Value,
    ) -> Decision {
        let _one = self.lock.lock().await;
        if mcp_proto::sync::lock(always).contains(exposed) {
            return Decision::Allow;
        }
        let question = format!(
            "Allow {exposed} {}? [y]es / [n]o / [a]lways for this tool: ",
            short(&arguments.to_string(), SHORT)
        );
        loop {
            match Self::read(question.clone()).await.as_deref().map(str::trim) {
                Some("y") | Some("Y") | Some("yes") => return Decision::Allow,
                Some("a") | Some("A") | Some("always") => {
                    mcp_proto::sync::lock(always).insert(exposed.to_owned());
                    return Decision::Allow;
                }
                Some("n") | Some("N") | Some("no") | None => {
                    return Decision::Deny("the user declined the call".into())
                }
                Some(_) => eprintln!("  answer y, n or a"),
            }
        }
    }

    /// A form or URL elicitation, asked field by field.
    async fn elicit(&self, server: &str, params: ElicitParams) -> ElicitResult {
        let _one = self.lock.lock().await;
        match params {
            ElicitParams::Url(url) => {
                eprintln!("{server} asks: {}\n  open {}", url.message, url.url);
                match Self::read("Press Enter when done, or n to decline: ".into()).await {
                    Some(a) if a.trim().eq_ignore_ascii_case("n") => ElicitResult::decline(),
                    Some(_) => ElicitResult::accept(None),
                    None => ElicitResult::cancel(),
                }
            }
            ElicitParams::Form(form_params) => {
                eprintln!("{server} asks: {}", form_params.message);
                match Self::read("Answer? [Y]es / [n]o (decline) / [c]ancel: ".into())
                    .await
                    .as_deref()
                    .map(str::trim)
                {
                    Some("n") | Some("N") => return ElicitResult::decline(),
                    Some("c") | Some("C") | None => return ElicitResult::cancel(),
                    _ => {}
                }
                let mut content = Map::new();
                for (name, schema, required) in form::fields(&form_params.requested_schema) {
                    let question = form::question(&name, &schema, required);
                    loop {
                        let Some(answer) = Self::read(question.clone()).await else {
                            return ElicitResult::cancel();
                        };
                        let checked = if answer.trim().is_empty() {
                            form::empty_answer(&schema, required)
                        } else {
                            form::check_field(&schema, &answer).map(Some)
                        };
                        match checked {
                            Ok(Some(value)) => {
                                content.insert(name.clone(), value);
                                break;
                            }
                            Ok(None) => break,
                            Err(why) => eprintln!("    {why}"),
                        }
                    }
                }
                ElicitResult::accept(Some(content))
            }
        }
    }

    /// Whether a server may have the model sample.
    async fn allow_sampling(&self, server: &str) -> bool {
        let _one = self.lock.lock().await;
        let question =
            format!("{server} asks the model for a completion (sampling). Allow? [y/n]: ");
        matches!(
            Self::read(question).await.as_deref().map(str::trim),
            Some("y" | "Y" | "yes")
        )
    }

    /// The human of a chat: `--yes` approves every call and sampling request; otherwise each
    /// is asked here, or refused with a line saying how to allow it when nobody can be asked.
    pub fn human(&self, yes: bool) -> Human {
        let mut human = Human::new();
        if !yes {
            let asker = self.clone();
            let always = Arc::new(Mutex::new(HashSet::new()));
            human = human.approve_with(move |request| {
                let (asker, always) = (asker.clone(), always.clone());
                async move {
                    if !asker.interactive {
                        return Decision::Deny(format!(
                            "needs approval: run mcp chat with --yes, or add {:?} to the server's autoApprove",
                            request.tool
                        ));
                    }
                    asker.approve(&always, &request.exposed, &request.arguments).await
                }
            });
        }
        let asker = self.clone();
        human = human.elicit_with(move |server, params| {
            let asker = asker.clone();
            async move {
                if !asker.interactive {
                    eprintln!(
                        "mcp: {server} asked for input, but nobody can answer here: declined"
                    );
                    return ElicitResult::decline();
                }
                asker.elicit(&server, params).await
            }
        });
        let asker = self.clone();
        human.sample_with(move |server, _params| {
            let asker = asker.clone();
            async move {
                match (yes, asker.interactive) {
                    (true, _) => true,
                    (false, true) => asker.allow_sampling(&server).await,
                    (false, false) => {
                        eprintln!("mcp: {server} asked the model for a completion: declined (use --yes to allow)");
                        false
                    }
                }
            }
        })
    }
}
