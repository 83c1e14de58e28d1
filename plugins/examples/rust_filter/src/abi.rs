//! Hand-written bindings to the parts of `schedhost/abi.h` (ABI 1.0) this plugin uses.
//!
//! Layout rules, so that these stay correct when the header grows:
//! - Structs the *plugin* fills in (the library, the descriptor, the vtable) are declared in full:
//!   the host reads them up to the `struct_size` we set, and refuses one shorter than ABI 1.0.
//! - The host API table is filled in by the *host* and only read here, through a pointer. It is
//!   declared in order up to the last field this plugin calls (`node_map_get`) and no further.
//!   Later minors only append fields at the end, so this prefix keeps its offsets forever; before
//!   calling a function we check that the host's `struct_size` covers it (see `HostApi::has`).
//!   Fields we do not call are declared as untyped function pointers, only to keep the offsets.
#![allow(dead_code)]

use std::os::raw::{c_char, c_void};

pub const ABI_MAJOR: u32 = 1;
pub const ABI_MINOR: u32 = 0;
pub const LIBRARY_MAGIC: u32 = 0x314C_4853; // "SHL1"

/// `schedhost_str_t`: a borrowed UTF-8 view, not NUL-terminated.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Str {
    pub data: *const c_char,
    pub len: usize,
}

impl Str {
    pub const EMPTY: Str = Str {
        data: std::ptr::null(),
        len: 0,
    };

    pub fn from(s: &str) -> Str {
        Str {
            data: s.as_ptr().cast(),
            len: s.len(),
        }
    }

    /// The bytes of a view the host handed us; valid until the hook returns.
    ///
    /// # Safety
    /// `self` must point to `len` readable bytes (or be `{NULL, 0}`).
    pub unsafe fn as_bytes<'a>(self) -> &'a [u8] {
        if self.data.is_null() || self.len == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(self.data.cast(), self.len)
        }
    }
}

pub type Code = i32;
pub const SUCCESS: Code = 0;
pub const ERROR: Code = 1;
pub const UNSCHEDULABLE: Code = 2;
pub const UNSCHEDULABLE_AND_UNRESOLVABLE: Code = 3;

pub type MapKind = i32;
pub const MAP_LABELS: MapKind = 0;

pub type NodeStringField = i32;
pub const NODE_NAME: NodeStringField = 0;

/// Opaque host handles: only ever behind pointers.
#[repr(C)]
pub struct Host {
    _private: [u8; 0],
}
#[repr(C)]
pub struct Call {
    _private: [u8; 0],
}
#[repr(C)]
pub struct Pod {
    _private: [u8; 0],
}
#[repr(C)]
pub struct Node {
    _private: [u8; 0],
}
#[repr(C)]
pub struct CycleState {
    _private: [u8; 0],
}

/// A function pointer this plugin never calls: it is declared only to keep the offsets.
pub type Unused = Option<unsafe extern "C" fn()>;

/// `schedhost_host_api_t`, the prefix up to `node_map_get`.
#[repr(C)]
pub struct HostApi {
    pub struct_size: u32,
    pub abi_major: u32,
    pub abi_minor: u32,
    // Logging
    pub log_enabled: Option<unsafe extern "C" fn(host: *const Host, level: i32) -> bool>,
    pub log: Option<unsafe extern "C" fn(host: *const Host, level: i32, msg: Str)>,
    // Results of the current call
    pub add_reason: Option<unsafe extern "C" fn(call: *mut Call, reason: Str)>,
    pub set_node_names: Unused,
    pub set_nominated_node: Unused,
    // Pod accessors: pod_string .. pod_json
    pub pod_string: Unused,
    pub pod_integer: Unused,
    pub pod_map_get: Unused,
    pub pod_map_count: Unused,
    pub pod_map_at: Unused,
    pub pod_resource: Unused,
    pub pod_resource_count: Unused,
    pub pod_resource_at: Unused,
    pub pod_toleration_count: Unused,
    pub pod_toleration_at: Unused,
    pub pod_host_port_count: Unused,
    pub pod_host_port_at: Unused,
    pub pod_container_count: Unused,
    pub pod_container_at: Unused,
    pub pod_json: Unused,
    // Node accessors
    pub node_string: Option<unsafe extern "C" fn(node: *const Node, field: NodeStringField) -> Str>,
    pub node_integer: Unused,
    pub node_map_get: Option<
        unsafe extern "C" fn(node: *const Node, map: MapKind, key: Str, out: *mut Str) -> bool,
    >,
    // Everything after node_map_get is not declared: see the module comment.
}

impl HostApi {
    /// Whether the host's table is long enough to hold a field ending at `end` bytes.
    pub fn has(&self, end: usize) -> bool {
        self.struct_size as usize >= end
    }
    /// The end of `node_map_get`, the last field this plugin uses.
    pub const USED_END: usize = std::mem::offset_of!(HostApi, node_map_get)
        + std::mem::size_of::<Option<unsafe extern "C" fn()>>();
}

pub type CreateFn = unsafe extern "C" fn(
    host_api: *const HostApi,
    host: *const Host,
    args_json: Str,
    call: *mut Call,
    out_self: *mut *mut c_void,
) -> Code;
pub type DestroyFn = unsafe extern "C" fn(self_: *mut c_void);
pub type FilterFn = unsafe extern "C" fn(
    self_: *mut c_void,
    call: *mut Call,
    state: *const CycleState,
    pod: *const Pod,
    node: *const Node,
) -> Code;

/// `schedhost_plugin_vtable_t` in full (ABI 1.0): the host refuses a shorter one.
#[repr(C)]
pub struct PluginVtable {
    pub struct_size: u32,
    pub create: Option<CreateFn>,
    pub destroy: Option<DestroyFn>,
    pub pre_enqueue: Unused,
    pub queue_sort_less: Unused,
    pub pre_filter: Unused,
    pub add_pod: Unused,
    pub remove_pod: Unused,
    pub filter: Option<FilterFn>,
    pub post_filter: Unused,
    pub pre_score: Unused,
    pub score: Unused,
    pub normalize_score: Unused,
    pub reserve: Unused,
    pub unreserve: Unused,
    pub permit: Unused,
    pub pre_bind: Unused,
    pub bind: Unused,
    pub post_bind: Unused,
    pub get_extension: Unused,
}

/// `schedhost_plugin_descriptor_t`.
#[repr(C)]
pub struct PluginDescriptor {
    pub struct_size: u32,
    pub name: *const c_char,        // NUL-terminated
    pub description: *const c_char, // NUL-terminated
    pub vtable: *const PluginVtable,
}
// Immutable statics of plain pointers to other statics: safe to share between threads.
unsafe impl Sync for PluginDescriptor {}

/// `plugins[plugin_count]` of the library.
#[repr(transparent)]
pub struct PluginList<const N: usize>(pub [*const PluginDescriptor; N]);
unsafe impl<const N: usize> Sync for PluginList<N> {}

/// `schedhost_library_t`, what the entry function returns.
#[repr(C)]
pub struct Library {
    pub magic: u32,
    pub struct_size: u32,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub min_host_abi_minor: u32,
    pub name: *const c_char,
    pub version: *const c_char,
    pub build_info: *const c_char,
    pub init: Unused,
    pub deinit: Unused,
    pub plugin_count: u32,
    pub plugins: *const *const PluginDescriptor,
}
unsafe impl Sync for Library {}

// The sizes abi.h has on LP64 for ABI 1.0: a typo in the declarations above fails the build.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Library>() == 80);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<PluginDescriptor>() == 32);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<PluginVtable>() == 160);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::offset_of!(HostApi, node_map_get) == 192);
