//! The one place the libraries touch the Lua C API: the C functions Redis registers raise
//! their errors with `luaL_error` and `luaL_argerror`, which put the caller's position and the
//! function's name as called ("bad argument #1 to 'pack'", "user_script:1: ...") in the text
//! that scripts catch with `pcall` and that Redis replies with. mlua's Rust callbacks raise
//! userdata errors instead, so each library function is a Rust callback that returns a status,
//! behind a small C closure (this trampoline) that raises the C libraries' way. It also keeps
//! numbers exact: mlua hands Lua 5.1 numbers in (-2^-52, 2^-52) and -0 to Rust as integer 0.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::ffi::c_int;

use mlua::{ffi, Function, Lua, Table, Value};

/// Status codes the Rust side of a library function returns first (see [`super::Fail`]).
pub(super) const OK: i64 = 0;
/// `luaL_error`: the message is prefixed with the caller's position.
pub(super) const ERROR: i64 = 1;
/// `luaL_argerror(narg, msg)`.
pub(super) const ARG_ERROR: i64 = 2;
/// A runtime error raised without position, as Lua's own `lua_settable` errors from C.
pub(super) const PLAIN_ERROR: i64 = 3;

thread_local! {
    /// Arguments (1-based index, exact value) mlua would hand to Rust as integer 0; the
    /// trampoline fills it just before calling the Rust side, which takes it first thing.
    static EXACT_ARGS: RefCell<Vec<(usize, f64)>> = const { RefCell::new(Vec::new()) };
}

/// The exact numbers among the arguments of the library call now starting.
pub(super) fn take_exact_args() -> Vec<(usize, f64)> {
    EXACT_ARGS.with(|cell| std::mem::take(&mut *cell.borrow_mut()))
}

/// Does mlua turn this number into `Value::Integer(0)` (losing tiny values and -0)?
fn lossy(n: f64) -> bool {
    n.abs() < f64::EPSILON && (n != 0.0 || n.is_sign_negative())
}

/// A C closure over `raw`, the Rust side, which returns a status code first: [`OK`] and the
/// results, or an error code, the argument number and the message.
pub(super) fn wrap(lua: &Lua, raw: Function) -> mlua::Result<Function> {
    // SAFETY: `exec_raw` gives a protected stack holding `raw`; `lua_pushcclosure` pops it as
    // the one upvalue and pushes the closure, the single value `exec_raw` reads back.
    unsafe {
        lua.exec_raw(raw, |state| {
            ffi::lua_pushcclosure(state, trampoline, 1);
        })
    }
}

/// Records the arguments mlua would read as integer 0 for the Rust side (always, so nothing
/// stale from an earlier call survives). A function of its own so that no value with a
/// destructor lives in the trampoline's frame, which a Lua error longjmps over.
unsafe fn record_exact_args(state: *mut ffi::lua_State, nargs: c_int) {
    let mut exact = Vec::new();
    for i in 1..=nargs {
        if ffi::lua_type(state, i) == ffi::LUA_TNUMBER {
            let n = ffi::lua_tonumber(state, i);
            if lossy(n) {
                exact.push((i as usize, n));
            }
        }
    }
    EXACT_ARGS.with(|cell| *cell.borrow_mut() = exact);
}

/// The C function scripts call: runs the Rust side, then returns its results or raises.
unsafe extern "C-unwind" fn trampoline(state: *mut ffi::lua_State) -> c_int {
    let nargs = ffi::lua_gettop(state);
    record_exact_args(state, nargs);
    ffi::lua_pushvalue(state, ffi::lua_upvalueindex(1));
    ffi::lua_insert(state, 1);
    // Errors of mlua itself (memory, a Lua error inside a metamethod) propagate unchanged.
    ffi::lua_call(state, nargs, ffi::LUA_MULTRET);
    let top = ffi::lua_gettop(state);
    let code = ffi::lua_tointeger(state, 1) as i64;
    if code == OK {
        ffi::lua_remove(state, 1);
        return top - 1;
    }
    // Error results: code, argument number, message (a Lua string, kept on the stack while
    // its pointer is used). No Rust value with a destructor is alive past this point, since
    // raising longjmps out of this frame.
    let narg = ffi::lua_tointeger(state, 2) as c_int;
    match code {
        ARG_ERROR => {
            ffi::luaL_argerror(state, narg, ffi::lua_tostring(state, 3));
            0
        }
        PLAIN_ERROR => {
            ffi::lua_pushvalue(state, 3);
            ffi::lua_error(state)
        }
        _ => {
            ffi::luaL_where(state, 1);
            ffi::lua_pushvalue(state, 3);
            ffi::lua_concat(state, 2);
            ffi::lua_error(state)
        }
    }
}

/// The exact number `table[key]` holds (raw access), for values mlua read as integer 0.
pub(super) fn exact_field(lua: &Lua, table: &Table, key: &Value) -> mlua::Result<f64> {
    // SAFETY: the stack holds the table and the key `exec_raw` pushed; `lua_rawget` replaces
    // the key with the value, which is read and then replaced by its 8 bytes (a number would
    // be read back through the same lossy conversion).
    let bytes: mlua::String = unsafe {
        lua.exec_raw((table.clone(), key.clone()), |state| {
            ffi::lua_rawget(state, -2);
            let bits = ffi::lua_tonumber(state, -1).to_le_bytes();
            ffi::lua_pop(state, 2);
            ffi::lua_pushlstring(state, bits.as_ptr().cast(), bits.len());
        })
    }?;
    let mut bits = [0u8; 8];
    for (b, s) in bits.iter_mut().zip(bytes.as_bytes().iter()) {
        *b = *s;
    }
    Ok(f64::from_le_bytes(bits))
}
