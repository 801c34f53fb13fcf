//! `mcp chat`: a model calling the config's servers' tools (mcp-agent over the hub).
//!
//! Interactive by default (line editing and history, `/tools`, `/servers`, `/clear`,
//! `/save FILE`, `/exit`; Ctrl-C cancels the running turn, a second one exits), or one-shot
//! with `-p PROMPT`: the answer on stdout, exit 0 when the turn completed, 1 when it failed
//! (the model failed, or the step limit or budget stopped it), 130 when interrupted; `--json`
//! prints the turn's events as NDJSON instead.

mod form;
mod line_editor;
mod model_choice;
mod terminal;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use mcp_agent::{Agent, AgentOptions, StopReason, Turn, TurnSummary};
use mcp_hub::HubOptions;
use tokio::signal::unix::{signal, Signal, SignalKind};

use super::{Failure, Outcome};
use crate::config_path::ConfigSource;
use line_editor::{LineEditor, ReadLine};
pub use model_choice::ModelFlags;
use terminal::{Asker, Renderer};

/// Exit status after Ctrl-C.
const EXIT_INTERRUPTED: u8 = 130;
/// Exit status of a turn that did not complete.
const EXIT_FAILED: u8 = 1;

/// `mcp chat`'s options.
#[derive(Debug, clap::Args)]
pub struct ChatArgs {
    /// One-shot: send PROMPT, print the answer and exit (non-zero when the turn fails).
    #[arg(short = 'p', long = "prompt", value_name = "PROMPT")]
    pub prompt: Option<String>,
    /// Print the turn's events as NDJSON (one JSON object per line) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Approve every tool call and sampling request without asking.
    #[arg(long)]
    pub yes: bool,
    /// The most model calls per turn.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_steps: usize,
    /// The model's name (default: the config's `model` section, else the provider's default).
    #[arg(long)]
    pub model: Option<String>,
    /// The model endpoint's base URL (default: OPENAI_BASE_URL etc., the config, the provider's).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// openai (any OpenAI-compatible endpoint), anthropic or gemini (default: the config's, else
    /// the one whose API key is set).
    #[arg(long)]
    pub provider: Option<String>,
    /// The system prompt (the servers' instructions are added to it).
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,
    /// Resume the conversation of a transcript saved with `/save`.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
}

/// Runs `mcp chat`.
pub async fn chat(source: &ConfigSource, args: ChatArgs) -> Outcome {
    let flags = ModelFlags {
        provider: args.provider.clone(),
        model: args.model.clone(),
        base_url: args.base_url.clone(),
    };
    let model = model_choice::choose(&flags, source.path())?;
    let config = super::load(source)?;
    let asker = Asker::new();
    let builder = Agent::builder(model)
        .options(AgentOptions {
            system_prompt: args.system.clone().unwrap_or_default(),
            max_steps: args.max_steps.max(1),
            ..AgentOptions::default()
        })
        .human(asker.human(args.yes));
    let options = builder.hub_options(HubOptions {
        restart: None,
        ..HubOptions::default()
    });
    let hub = super::connect(config, options).await;
    for server in hub.servers() {
        if let mcp_hub::ServerStatus::Failed(reason) = &server.status {
            eprintln!(
                "mcp: server {} is not available: {reason}",
                server.config.name
            );
        }
    }
    let agent = builder.build(hub.clone());
    if let Some(path) = &args.resume {
        let messages =
            mcp_agent::transcript::load(path).map_err(|e| Failure::usage(e.to_string()))?;
        agent.set_conversation(messages).await;
    }
    let mut signals = Signals::new()?;
    let code = match &args.prompt {
        Some(prompt) => one_shot(&agent, prompt, args.json, &mut signals).await,
        None => interactive(&agent, args.json, &mut signals).await,
    };
    let closing = tokio::time::timeout(Duration::from_secs(5), hub.close()).await;
    if closing.is_err() {
        hub.kill();
    }
    Ok(code)
}

/// SIGINT and SIGTERM.
struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    fn new() -> Result<Self, Failure> {
        let listen =
            |kind| signal(kind).map_err(|e| Failure::usage(format!("cannot handle Ctrl-C: {e}")));
        Ok(Signals {
            interrupt: listen(SignalKind::interrupt())?,
            terminate: listen(SignalKind::terminate())?,
        })
    }

    async fn next(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}

/// How a turn shown at the terminal ended.
enum Shown {
    /// It ended by itself.
    Done(TurnSummary),
    /// A second Ctrl-C during it: exit now.
    Quit,
}

/// Shows a turn's events until it ends; the first signal cancels it, a second quits.
async fn show_turn(mut turn: Turn, json: bool, signals: &mut Signals) -> Shown {
    let mut renderer = Renderer::new();
    let mut interrupted = false;
    loop {
        tokio::select! {
            event = turn.next() => match event {
                Some(event) if json => outln!("{}", event.to_json_line()),
                Some(event) => renderer.show(&event),
                None => break,
            },
            _ = signals.next() => {
                if interrupted {
                    return Shown::Quit;
                }
                interrupted = true;
                turn.cancel();
                if !json {
                    renderer.note("(cancelling the turn; Ctrl-C again to exit)");
                }
            }
        }
    }
    // The renderer ended the answer's line when the turn finished.
    Shown::Done(turn.finish().await)
}

async fn one_shot(agent: &Agent, prompt: &str, json: bool, signals: &mut Signals) -> ExitCode {
    match show_turn(agent.send(prompt), json, signals).await {
        Shown::Quit => ExitCode::from(EXIT_INTERRUPTED),
        Shown::Done(summary) => match summary.reason {
            StopReason::Completed => ExitCode::SUCCESS,
            StopReason::Cancelled => ExitCode::from(EXIT_INTERRUPTED),
            _ => ExitCode::from(EXIT_FAILED),
        },
    }
}

const HELP: &str = "/tools  the tools the model can call\n/servers  the servers and their status\n/clear  forget the conversation\n/save FILE  write the conversation as a JSONL transcript (mcp chat --resume FILE)\n/exit  leave (also Ctrl-D)";

async fn interactive(agent: &Agent, json: bool, signals: &mut Signals) -> ExitCode {
    let mut editor = LineEditor::start();
    eprintln!(
        "mcp chat with {} over {} tools of {} servers. /help for commands, Ctrl-D to leave.",
        agent.model().name(),
        agent.hub().tools().len(),
        agent.hub().server_names().len()
    );
    let mut interrupted_at_prompt = false;
    loop {
        let line = match editor.read("› ").await {
            ReadLine::Line(line) => line,
            ReadLine::Interrupted if interrupted_at_prompt => {
                return ExitCode::from(EXIT_INTERRUPTED)
            }
            ReadLine::Interrupted => {
                eprintln!("(Ctrl-C again to exit, or /exit)");
                interrupted_at_prompt = true;
                continue;
            }
            ReadLine::End => return ExitCode::SUCCESS,
        };
        interrupted_at_prompt = false;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(command) = line.strip_prefix('/') {
            let (name, rest) = command.split_once(' ').unwrap_or((command, ""));
            match name {
                "exit" | "quit" => return ExitCode::SUCCESS,
                "help" => eprintln!("{HELP}"),
                "tools" => {
                    for tool in agent.hub().tools() {
                        outln!("{}  {}", tool.exposed, first_line(&tool.description));
                    }
                }
                "servers" => {
                    for server in agent.hub().servers() {
                        outln!(
                            "{}  {}  {} tools",
                            server.config.name,
                            server.status.describe(),
                            server.lists.tools.len()
                        );
                    }
                }
                "clear" => {
                    agent.set_conversation(Vec::new()).await;
                    eprintln!("(the conversation is cleared)");
                }
                "save" if !rest.trim().is_empty() => {
                    let path = std::path::Path::new(rest.trim());
                    match mcp_agent::transcript::save(path, &agent.conversation().await) {
                        Ok(()) => eprintln!("(saved to {})", path.display()),
                        Err(e) => eprintln!("mcp: {e}"),
                    }
                }
                "save" => eprintln!("mcp: /save needs a file name"),
                other => eprintln!("mcp: unknown command /{other}; /help lists them"),
            }
            continue;
        }
        if let Shown::Quit = show_turn(agent.send(line), json, signals).await {
            return ExitCode::from(EXIT_INTERRUPTED);
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
