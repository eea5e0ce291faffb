// Starts the app: its own file, not an inline script, so that the Content-Security-Policy
// can allow scripts from this origin only.
import init from "/pkg/frontend.js";
init({ module_or_path: "/pkg/frontend_bg.wasm" });
