//! Tasks through the hub: a task started through the hub is remembered with the server that
//! issued its id (a bounded map), so `get`, `result`, `wait` and `cancel` by id go to that
//! server. An id the hub has not seen (a task started by an earlier process, say) is looked
//! for on every connected server that offers tasks, and remembered once found.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use mcp_proto::schema::{CallToolResult, Task};
use serde_json::Value;

use super::{Hub, HubError};
use mcp_client::{Client, TaskOptions, TaskStart};

/// A task and the server it runs on.
#[derive(Clone, Debug)]
pub struct HubTask {
    /// The server that issued the id.
    pub server: String,
    /// The task.
    pub task: Task,
}

/// What starting a tool as a task through the hub gave.
#[derive(Clone, Debug)]
pub enum HubTaskStart {
    /// A task on this server.
    Task(HubTask),
    /// The server answered at once (shaped like any hub result).
    Done(CallToolResult),
}

/// Which server issued each task id, remembered for the most recent [`TaskOwners::CAPACITY`]
/// ids (the oldest is forgotten first). Cheap to clone; clones share the map.
#[derive(Clone, Debug, Default)]
pub struct TaskOwners {
    inner: Arc<Mutex<Owners>>,
}

#[derive(Debug, Default)]
struct Owners {
    by_id: HashMap<String, String>,
    order: VecDeque<String>,
}

impl TaskOwners {
    /// The most task ids remembered at once.
    pub const CAPACITY: usize = 4096;

    /// Remembers that `server` issued `id`.
    pub fn insert(&self, id: &str, server: &str) {
        let mut owners = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if owners
            .by_id
            .insert(id.to_owned(), server.to_owned())
            .is_none()
        {
            owners.order.push_back(id.to_owned());
        }
        while owners.order.len() > Self::CAPACITY {
            if let Some(old) = owners.order.pop_front() {
                owners.by_id.remove(&old);
            }
        }
    }

    /// The server that issued `id`, if remembered.
    pub fn get(&self, id: &str) -> Option<String> {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .by_id
            .get(id)
            .cloned()
    }

    /// How many ids are remembered.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .by_id
            .len()
    }

    /// Whether no id is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Hub {
    /// Starts a tool (by exposed name) as a task on its server, after approval, and remembers
    /// which server issued the task's id.
    pub async fn start_tool_task(
        &self,
        name: &str,
        arguments: Value,
        options: &TaskOptions,
    ) -> Result<HubTaskStart, HubError> {
        let (tool, client, config) = self.approved_call(name, &arguments).await?;
        let mut options = options.clone();
        options.request_timeout = options.request_timeout.or(Some(config.timeout));
        match client
            .start_tool_task(&tool.tool.name, arguments, &options)
            .await?
        {
            TaskStart::Task(task) => {
                self.inner.task_owners.insert(&task.task_id, &tool.server);
                Ok(HubTaskStart::Task(HubTask {
                    server: tool.server.clone(),
                    task,
                }))
            }
            TaskStart::Done(result) => Ok(HubTaskStart::Done(self.finish_result(&tool, *result))),
        }
    }

    /// Calls a tool (by exposed name) as a task and waits for its result, which is shaped
    /// like any hub result. See [`Client::call_tool_as_task`].
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        options: TaskOptions,
    ) -> Result<CallToolResult, HubError> {
        let (tool, client, config) = self.approved_call(name, &arguments).await?;
        let mut options = options;
        options.request_timeout = options.request_timeout.or(Some(config.timeout));
        let owners = self.inner.task_owners.clone();
        let server = tool.server.clone();
        let user_status = options.on_status.take();
        options.on_status = Some(Arc::new(move |task: &Task| {
            owners.insert(&task.task_id, &server);
            if let Some(f) = &user_status {
                f(task);
            }
        }));
        let result = client
            .call_tool_as_task(&tool.tool.name, arguments, options)
            .await?;
        Ok(self.finish_result(&tool, result))
    }

    /// The server that issued task `id`, as far as the hub remembers.
    pub fn task_owner(&self, id: &str) -> Option<String> {
        self.inner.task_owners.get(id)
    }

    /// The client of the server that owns task `id`: the remembered one, else the first
    /// connected server offering tasks that knows the id (then remembered).
    async fn task_client(&self, id: &str) -> Result<(String, Client, Option<Task>), HubError> {
        if let Some(server) = self.inner.task_owners.get(id) {
            return Ok((server.clone(), self.client(&server)?, None));
        }
        for server in self.all() {
            let Some(client) = server.client() else {
                continue;
            };
            if client.task_flavour().is_none() {
                continue;
            }
            if let Ok(task) = client.get_task(id).await {
                let name = server.name();
                self.inner.task_owners.insert(id, &name);
                return Ok((name, client, Some(task)));
            }
        }
        Err(HubError::UnknownTask { id: id.to_owned() })
    }

    /// Task `id`'s state now, from the server that owns it.
    pub async fn get_task(&self, id: &str) -> Result<HubTask, HubError> {
        let (server, client, found) = self.task_client(id).await?;
        let task = match found {
            Some(task) => task,
            None => client.get_task(id).await?,
        };
        Ok(HubTask { server, task })
    }

    /// Task `id`'s result (see [`Client::task_result`]).
    pub async fn task_result(&self, id: &str) -> Result<CallToolResult, HubError> {
        let (_, client, _) = self.task_client(id).await?;
        Ok(self
            .inner
            .options
            .shaping
            .shape(client.task_result(id).await?))
    }

    /// Waits for task `id` to end and returns its result (see [`Client::await_task_result`]).
    pub async fn await_task_result(
        &self,
        id: &str,
        options: &TaskOptions,
    ) -> Result<CallToolResult, HubError> {
        let (_, client, _) = self.task_client(id).await?;
        Ok(self
            .inner
            .options
            .shaping
            .shape(client.await_task_result(id, options).await?))
    }

    /// Cancels task `id` on the server that owns it; its state when the server sends it.
    pub async fn cancel_task(&self, id: &str) -> Result<Option<HubTask>, HubError> {
        let (server, client, _) = self.task_client(id).await?;
        Ok(client
            .cancel_task(id)
            .await?
            .map(|task| HubTask { server, task }))
    }

    /// The tasks of one server, or of every connected server that lists tasks (2025-11-25
    /// servers that declared `tasks.list`; others are skipped when no server is named).
    /// Every id listed is remembered with its server.
    pub async fn list_tasks(&self, server: Option<&str>) -> Result<Vec<HubTask>, HubError> {
        let clients = match server {
            Some(name) => vec![(name.to_owned(), self.client(name)?)],
            None => self
                .all()
                .iter()
                .filter_map(|s| s.client().map(|c| (s.name(), c)))
                .filter(|(_, c)| {
                    c.server_capabilities()
                        .tasks
                        .is_some_and(|t| t.list.is_some())
                        && c.era() == mcp_client::Era::Legacy
                })
                .collect(),
        };
        let mut out = Vec::new();
        for (name, client) in clients {
            for task in client.list_tasks().await? {
                self.inner.task_owners.insert(&task.task_id, &name);
                out.push(HubTask {
                    server: name.clone(),
                    task,
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_are_bounded_oldest_first() {
        let owners = TaskOwners::default();
        for i in 0..TaskOwners::CAPACITY + 10 {
            owners.insert(&format!("t{i}"), "s");
        }
        assert_eq!(owners.len(), TaskOwners::CAPACITY);
        assert_eq!(owners.get("t0"), None);
        assert_eq!(owners.get("t9"), None);
        assert_eq!(owners.get("t10").as_deref(), Some("s"));
        owners.insert("t10", "other");
        assert_eq!(owners.get("t10").as_deref(), Some("other"));
        assert_eq!(owners.len(), TaskOwners::CAPACITY);
    }
}
