//! The module graph of a crate, read from its source text, for the tidy test that keeps the
//! modules of every crate free of import cycles.
//!
//! A module is a file (`a.rs` or `a/mod.rs` is module `a`, `a/b.rs` is `a::b`). Module `m`
//! depends on module `n` when `m`'s code (not its comments, not its tests) names a path into `n`:
//! `crate::n::…`, `super::…`, `self::…`, or a child's name `n::…`. A path names the longest
//! module prefix it starts with. Paths to the crate root are not counted: the root only declares
//! modules and re-exports their items.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (segments from the crate root) → the modules it depends on.
pub type Graph = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

/// The module graph of the crate whose root file is `root_file` (`src/lib.rs` or `src/main.rs`).
pub fn module_graph(root_file: &Path) -> Graph {
    let src = root_file.parent().unwrap_or(Path::new("."));
    let mut files: BTreeMap<Vec<String>, String> = BTreeMap::new();
    collect(src, src, root_file, &mut files);
    let modules: BTreeSet<Vec<String>> = files.keys().cloned().collect();
    let mut graph = Graph::new();
    for (module, text) in &files {
        let code = code_of(text);
        let mut deps = BTreeSet::new();
        for path in paths_in(&code, module, &children_of(module, &modules)) {
            let target = longest_module(&path, &modules);
            if !target.is_empty() && &target != module {
                deps.insert(target);
            }
        }
        graph.insert(module.clone(), deps);
    }
    graph
}

/// Every module file below `dir`, by module path; `root_file` is the crate root.
fn collect(src: &Path, dir: &Path, root_file: &Path, out: &mut BTreeMap<Vec<String>, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(src, &path, root_file, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(src).unwrap_or(&path);
        let mut segments: Vec<String> = relative
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if segments.last().is_some_and(|s| s == "mod") {
            segments.pop();
        }
        if path == root_file {
            segments.clear();
        } else if segments.len() == 1 && (segments[0] == "main" || segments[0] == "lib") {
            // The other crate root of a package with both a library and a binary.
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&path) {
            out.insert(segments, text);
        }
    }
}

/// The code of a file: without comments and without its test module (`#[cfg(test)]` onwards).
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            // A `//` inside a string (a URL) is rare in paths' lines; cutting it loses nothing.
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names of the modules directly below `module`.
fn children_of(module: &[String], modules: &BTreeSet<Vec<String>>) -> Vec<String> {
    modules
        .iter()
        .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
        .filter_map(|m| m.last().cloned())
        .collect()
}

/// The absolute paths `code` (of `module`) names, expanding `{a, b::c}` groups.
fn paths_in(code: &str, module: &[String], children: &[String]) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) || (i > 0 && (is_ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        let word = &code[start..i];
        let base: Option<Vec<String>> = match word {
            "crate" => Some(Vec::new()),
            "self" => Some(module.to_vec()),
            "super" => Some(module[..module.len().saturating_sub(1)].to_vec()),
            w if children.iter().any(|c| c == w) => {
                let mut m = module.to_vec();
                m.push(w.to_owned());
                Some(m)
            }
            _ => None,
        };
        let Some(base) = base else { continue };
        if !code[i..].starts_with("::") {
            continue;
        }
        let (paths, end) = expand(code, i, base);
        out.extend(paths);
        i = end;
    }
    out
}

/// The paths continuing `base` at `code[at..]` (which starts with `::`), and where they end.
fn expand(code: &str, mut at: usize, base: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let bytes = code.as_bytes();
    let mut path = base;
    while code[at..].starts_with("::") {
        at += 2;
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if at < bytes.len() && bytes[at] == b'{' {
            let mut out = Vec::new();
            let mut depth = 0;
            let mut item_start = at + 1;
            let mut end = at;
            for (k, &b) in bytes.iter().enumerate().skip(at) {
                match b {
                    b'{' => depth += 1,
                    b'}' | b',' if depth == 1 => {
                        let item = code[item_start..k].trim();
                        let segments: Vec<String> = item
                            .split("::")
                            .map(|s| s.split_whitespace().next().unwrap_or("").to_owned())
                            .take_while(|s| {
                                !s.is_empty()
                                    && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                            })
                            .collect();
                        let mut p = path.clone();
                        p.extend(segments);
                        out.push(p);
                        item_start = k + 1;
                        if b == b'}' {
                            end = k + 1;
                            break;
                        }
                    }
                    b'}' => depth -= 1,
                    _ => {}
                }
            }
            return (out, end);
        }
        let start = at;
        while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
            at += 1;
        }
        match &code[start..at] {
            "" => break,
            "super" => {
                path.pop();
            }
            segment => path.push(segment.to_owned()),
        }
    }
    (vec![path], at)
}

/// The longest prefix of `path` that is a module.
fn longest_module(path: &[String], modules: &BTreeSet<Vec<String>>) -> Vec<String> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| modules.contains(p))
        .unwrap_or_default()
}

/// A cycle of the graph, if it has one, as the modules along it.
pub fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    // Depth-first search with colours: 1 on the stack, 2 done.
    fn visit(
        node: &Vec<String>,
        graph: &Graph,
        colour: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<String>> {
        colour.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            match colour.get(next) {
                Some(1) => {
                    let from = stack.iter().position(|m| m == next).unwrap_or(0);
                    let mut cycle: Vec<String> =
                        stack[from..].iter().map(|m| m.join("::")).collect();
                    cycle.push(next.join("::"));
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(cycle) = visit(next, graph, colour, stack) {
                        return Some(cycle);
                    }
                }
            }
        }
        stack.pop();
        colour.insert(node.clone(), 2);
        None
    }
    let mut colour = BTreeMap::new();
    for node in graph.keys() {
        if !colour.contains_key(node)
            && let Some(cycle) = visit(node, graph, &mut colour, &mut Vec::new())
        {
            return Some(cycle);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph_of(files: &[(&str, &str)]) -> Graph {
        let dir = tempfile_dir();
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
            std::fs::write(&path, text).expect("write");
        }
        let graph = module_graph(&dir.join("lib.rs"));
        let _ = std::fs::remove_dir_all(&dir);
        graph
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "modgraph-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn a_cycle_through_crate_paths_use_groups_and_super_is_found() {
        let graph = graph_of(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            (
                "a/mod.rs",
                "pub mod x;\nuse crate::b::{thing, other::More};\n",
            ),
            ("a/x.rs", "// crate::b is only named in a comment\n"),
            ("b/mod.rs", "pub mod other;\n"),
            ("b/other.rs", "fn f() { super::super::a::g() }\n"),
        ]);
        assert_eq!(
            find_cycle(&graph),
            Some(vec!["a".to_owned(), "b::other".to_owned(), "a".to_owned()])
        );
    }

    #[test]
    fn a_layered_crate_has_no_cycle_and_tests_and_the_root_do_not_count() {
        let graph = graph_of(&[
            ("lib.rs", "pub mod a;\npub mod b;\npub use a::Thing;\n"),
            (
                "a.rs",
                "pub struct Thing;\nfn f() -> crate::Thing { todo() }\n",
            ),
            (
                "b.rs",
                "use crate::a::Thing;\n#[cfg(test)]\nmod tests { use crate::b; }\n",
            ),
        ]);
        assert_eq!(find_cycle(&graph), None);
        assert!(graph[&vec!["b".to_owned()]].contains(&vec!["a".to_owned()]));
    }
}
