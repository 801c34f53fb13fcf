//! The resources service: static resources by URI, templates matched in registration order,
//! and providers that list and read resources on demand; `resources/list`,
//! `resources/templates/list` and `resources/read`.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use mcp_proto::jsonrpc::RawJson;
use serde::Deserialize;

use super::{encode, list_page, listing, parsed_meta, read_table, rejected, write_table};
use crate::context::Context;
use crate::error::ServerError;
use crate::handler::{Call, MetaSource};
use crate::resource::{
    ProviderEntry, ReadFn, Resource, ResourceEntry, ResourceRequest, ResourceTemplate,
    TemplateEntry,
};
use crate::router::parse_params;

/// Every resource, template and provider a server offers.
#[derive(Default)]
pub(crate) struct ResourceService {
    resources: RwLock<HashMap<String, Arc<ResourceEntry>>>,
    templates: RwLock<Vec<Arc<TemplateEntry>>>,
    providers: RwLock<Vec<Arc<ProviderEntry>>>,
    /// Registration order, which the lists keep.
    seq: AtomicU64,
}

/// `resources/read` params.
#[derive(Deserialize)]
struct UriParams {
    uri: String,
    #[serde(default, rename = "_meta")]
    meta: Option<mcp_proto::schema::Meta>,
}

impl ResourceService {
    fn next_seq(&self) -> u64 {
        self.seq.fetch_add(1, Ordering::Relaxed)
    }

    /// Adds a static resource, or replaces the one with the same URI.
    pub(crate) fn add_resource(&self, resource: Resource, read_fn: ReadFn) {
        let resource = resource.0;
        let entry = ResourceEntry {
            listing: listing(&resource),
            resource,
            read: read_fn,
            seq: self.next_seq(),
        };
        write_table(&self.resources).insert(entry.resource.uri.clone(), Arc::new(entry));
    }

    /// Removes a static resource; returns whether it existed.
    pub(crate) fn remove_resource(&self, uri: &str) -> bool {
        write_table(&self.resources).remove(uri).is_some()
    }

    /// Adds a template, or replaces the one with the same template text; refuses an invalid one.
    pub(crate) fn add_template(
        &self,
        template: ResourceTemplate,
        read_fn: ReadFn,
    ) -> Result<(), ServerError> {
        let template = template.0;
        let parsed = TemplateEntry::parse(&template)
            .map_err(|e| ServerError::InvalidParams(e.to_string()))?;
        let entry = TemplateEntry {
            listing: listing(&template),
            template,
            parsed,
            read: read_fn,
            seq: self.next_seq(),
        };
        let mut templates = write_table(&self.templates);
        templates.retain(|t| t.template.uri_template != entry.template.uri_template);
        templates.push(Arc::new(entry));
        Ok(())
    }

    /// Removes a template (by its template text); returns whether it existed.
    pub(crate) fn remove_template(&self, uri_template: &str) -> bool {
        let mut templates = write_table(&self.templates);
        let before = templates.len();
        templates.retain(|t| t.template.uri_template != uri_template);
        templates.len() != before
    }

    /// Adds a provider of resources listed and read on demand.
    pub(crate) fn add_provider(&self, provider: ProviderEntry) {
        write_table(&self.providers).push(Arc::new(provider));
    }

    pub(crate) fn is_empty(&self) -> bool {
        read_table(&self.resources).is_empty()
            && read_table(&self.templates).is_empty()
            && read_table(&self.providers).is_empty()
    }

    /// Whether `uri` is a registered template's text or a static resource's URI.
    pub(crate) fn knows(&self, uri: &str) -> bool {
        read_table(&self.templates)
            .iter()
            .any(|t| t.template.uri_template == uri)
            || read_table(&self.resources).contains_key(uri)
    }

    /// `resources/list`: static resources in registration order, then each provider's.
    pub(crate) async fn list(
        &self,
        params: Option<&RawJson>,
        ctx: Context,
        page_size: usize,
    ) -> Result<RawJson, ServerError> {
        let mut entries: Vec<Arc<ResourceEntry>> =
            read_table(&self.resources).values().cloned().collect();
        entries.sort_by_key(|e| e.seq);
        let providers = read_table(&self.providers).clone();
        let mut items: Vec<RawJson> = entries.iter().map(|e| e.listing.clone()).collect();
        for provider in providers {
            let list =
                (provider.list)(&Call::new(&(), MetaSource::Absent, &ctx)).map_err(rejected)?;
            for resource in list.await? {
                items.push(encode(&resource)?);
            }
        }
        list_page("resources", params, page_size, &items, |item| item)
    }

    /// `resources/templates/list`, in registration order.
    pub(crate) fn list_templates(
        &self,
        params: Option<&RawJson>,
        page_size: usize,
    ) -> Result<RawJson, ServerError> {
        let mut entries = read_table(&self.templates).clone();
        entries.sort_by_key(|e| e.seq);
        list_page("resourceTemplates", params, page_size, &entries, |e| {
            &e.listing
        })
    }

    /// `resources/read`: a static resource, else the first provider that knows the URI, else
    /// the first template that matches it.
    pub(crate) async fn read(
        &self,
        params: Option<&RawJson>,
        ctx: Context,
    ) -> Result<RawJson, ServerError> {
        let UriParams { uri, meta } = parse_params(params)?;
        let meta = parsed_meta(meta.as_ref());
        let exact = read_table(&self.resources).get(&uri).cloned();
        if let Some(entry) = exact {
            let request = ResourceRequest {
                uri,
                vars: BTreeMap::new(),
                mime_type: entry.resource.mime_type.clone(),
            };
            let reading = (entry.read)(&Call::new(&request, meta, &ctx)).map_err(rejected)?;
            return encode(&reading.await?);
        }
        let providers = read_table(&self.providers).clone();
        for provider in providers {
            let request = ResourceRequest {
                uri: uri.clone(),
                vars: BTreeMap::new(),
                mime_type: None,
            };
            let reading = (provider.read)(&Call::new(&request, meta, &ctx)).map_err(rejected)?;
            match reading.await {
                Err(ServerError::ResourceNotFound(_)) => continue,
                result => return encode(&result?),
            }
        }
        let templates = read_table(&self.templates).clone();
        for template in templates {
            if let Some(vars) = template.parsed.matches(&uri) {
                let request = ResourceRequest {
                    uri,
                    vars,
                    mime_type: template.template.mime_type.clone(),
                };
                let reading =
                    (template.read)(&Call::new(&request, meta, &ctx)).map_err(rejected)?;
                return encode(&reading.await?);
            }
        }
        Err(ServerError::ResourceNotFound(uri))
    }
}
