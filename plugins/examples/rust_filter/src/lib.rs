//! RustLabelFilter: a schedhost plugin written in Rust against the C ABI, no crates.
//!
//! Filter: a node passes when it carries the label `args.label` (default
//! `schedhost.io/rust-ready`) and, when `args.value` is given, that label has that value.
//! Any other node is UnschedulableAndUnresolvable with the reason
//! `node(s) didn't have label <label>` (or `<label>=<value>`): no preemption adds a label.
//!
//! Args (pluginConfig[].args): `{"label": "<key>", "value": "<value>"}`, both optional strings.
//! Anything else is refused, and the host prints `plugin "RustLabelFilter": <why>`.
//!
//! What a Rust plugin needs: `#[repr(C)]` copies of the ABI structs (src/abi.rs), static
//! descriptors, `extern "C"` hooks that never let a panic cross into the host, and one exported
//! `#[no_mangle]` entry function. A cdylib exports only its `#[no_mangle] pub extern` functions.
mod abi;
mod args;

use abi::*;
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

const DEFAULT_LABEL: &str = "schedhost.io/rust-ready";

/// One instance per profile that enables the plugin; immutable after create, so Filter may run
/// on many threads at once.
struct RustLabelFilter {
    api: &'static HostApi, // the host API table lives as long as the host (abi.h)
    label: String,
    value: Option<String>,
    reason: String,
}

unsafe fn add_reason(api: &HostApi, call: *mut Call, reason: &str) {
    if let Some(add) = api.add_reason {
        add(call, Str::from(reason));
    }
}

/// Runs a hook body; a panic becomes an Error status instead of unwinding into the host.
unsafe fn guard(
    api: &HostApi,
    call: *mut Call,
    body: impl FnOnce() -> Result<Code, String>,
) -> Code {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(code)) => code,
        Ok(Err(message)) => {
            add_reason(api, call, &message);
            ERROR
        }
        Err(_) => {
            add_reason(api, call, "RustLabelFilter panicked");
            ERROR
        }
    }
}

/// create [main-thread]: validates the args and allocates the instance.
unsafe extern "C" fn create(
    host_api: *const HostApi,
    _host: *const Host,
    args_json: Str,
    call: *mut Call,
    out_self: *mut *mut c_void,
) -> Code {
    let api: &'static HostApi = &*host_api;
    guard(api, call, || {
        if api.abi_major != ABI_MAJOR || !api.has(HostApi::USED_END) || api.node_map_get.is_none() {
            return Err(
                "this host lacks node_map_get: use a schedhost with plugin ABI 1.0 or later"
                    .to_string(),
            );
        }
        let text = std::str::from_utf8(args_json.as_bytes())
            .map_err(|_| "args are not valid UTF-8".to_string())?;
        let args = args::parse(if text.is_empty() { "{}" } else { text })?;
        let label = args.label.unwrap_or_else(|| DEFAULT_LABEL.to_string());
        if label.is_empty() {
            return Err("label must not be empty".to_string());
        }
        let reason = match &args.value {
            Some(v) => format!("node(s) didn't have label {label}={v}"),
            None => format!("node(s) didn't have label {label}"),
        };
        let instance = Box::new(RustLabelFilter {
            api,
            label,
            value: args.value,
            reason,
        });
        *out_self = Box::into_raw(instance).cast();
        Ok(SUCCESS)
    })
}

/// destroy [main-thread]: frees what create allocated.
unsafe extern "C" fn destroy(self_: *mut c_void) {
    if !self_.is_null() {
        drop(Box::from_raw(self_.cast::<RustLabelFilter>()));
    }
}

/// filter [concurrent]: reads the node's label through the host; copies nothing.
unsafe extern "C" fn filter(
    self_: *mut c_void,
    call: *mut Call,
    _state: *const CycleState,
    _pod: *const Pod,
    node: *const Node,
) -> Code {
    let plugin = &*self_.cast::<RustLabelFilter>();
    let api = plugin.api;
    guard(api, call, || {
        let node_map_get = api.node_map_get.ok_or("host lacks node_map_get")?;
        let mut value = Str::EMPTY;
        let found = node_map_get(node, MAP_LABELS, Str::from(&plugin.label), &mut value);
        let passes = found
            && match &plugin.value {
                Some(wanted) => value.as_bytes() == wanted.as_bytes(),
                None => true,
            };
        if passes {
            return Ok(SUCCESS);
        }
        add_reason(api, call, &plugin.reason);
        Ok(UNSCHEDULABLE_AND_UNRESOLVABLE)
    })
}

static VTABLE: PluginVtable = PluginVtable {
    struct_size: std::mem::size_of::<PluginVtable>() as u32,
    create: Some(create),
    destroy: Some(destroy),
    pre_enqueue: None,
    queue_sort_less: None,
    pre_filter: None,
    add_pod: None,
    remove_pod: None,
    filter: Some(filter),
    post_filter: None,
    pre_score: None,
    score: None,
    normalize_score: None,
    reserve: None,
    unreserve: None,
    permit: None,
    pre_bind: None,
    bind: None,
    post_bind: None,
    get_extension: None,
};

static DESCRIPTOR: PluginDescriptor = PluginDescriptor {
    struct_size: std::mem::size_of::<PluginDescriptor>() as u32,
    name: c"RustLabelFilter".as_ptr(),
    description: c"Example in Rust: keeps pods on nodes that carry a given label".as_ptr(),
    vtable: &VTABLE,
};

static PLUGINS: PluginList<1> = PluginList([&DESCRIPTOR]);

static LIBRARY: Library = Library {
    magic: LIBRARY_MAGIC,
    struct_size: std::mem::size_of::<Library>() as u32,
    abi_major: ABI_MAJOR,
    abi_minor: ABI_MINOR,
    min_host_abi_minor: 0, // uses nothing added after ABI 1.0
    name: c"rust-filter".as_ptr(),
    version: c"1.0.0".as_ptr(),
    build_info: c"Rust, hand-written bindings to schedhost/abi.h".as_ptr(),
    init: None,
    deinit: None,
    plugin_count: 1,
    plugins: PLUGINS.0.as_ptr(),
};

/// The one exported symbol. [main-thread]
#[no_mangle]
pub extern "C" fn schedhost_plugin_library_v1() -> *const Library {
    &LIBRARY
}
