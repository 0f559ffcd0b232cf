//! docs/design/ARCHITECTURE.md stays true: its table of who may import whom is the import graph
//! of src/ (every `crate::…` path outside test modules), row for row, in layer order; no two files
//! of src/ import each other, directly or around a circle; none is over 1,000 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const DOC: &str = "docs/design/ARCHITECTURE.md";
const TABLE_HEADING: &str = "### Who may import whom";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    files
}

/// Every `.rs` file under src/ but the crate roots, as (module path, text without its tests).
fn sources() -> Vec<(Vec<String>, String)> {
    let src = root().join("src");
    let files = rust_files(&src);
    let mut out = Vec::new();
    let mut test_modules = BTreeSet::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap().with_extension("");
        let mut module: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into()).collect();
        if module.last().is_some_and(|l| l == "mod") {
            module.pop();
        }
        if module == ["lib"] || module == ["main"] {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        // `#[cfg(test)] mod x;` declares a file that is test code as a whole.
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if line.trim() == "#[cfg(test)]" {
                if let Some(name) = lines.next().and_then(|l| {
                    let l = l.trim();
                    let l = l
                        .strip_prefix("pub(crate) ")
                        .or(l.strip_prefix("pub "))
                        .unwrap_or(l);
                    l.strip_prefix("mod ")?.strip_suffix(';')
                }) {
                    let mut m = module.clone();
                    m.push(name.to_string());
                    test_modules.insert(m);
                }
            }
        }
        out.push((module, without_tests(&text)));
    }
    out.retain(|(m, _)| !(1..=m.len()).any(|n| test_modules.contains(&m[..n])));
    out
}

/// The text before the first `#[cfg(test)]` item that is a module, with comments removed: test
/// code may reach anywhere, and comments name modules freely.
fn without_tests(text: &str) -> String {
    let mut kept = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            let next = lines.peek().map(|l| l.trim_start()).unwrap_or("");
            let is_mod = |s: &str| {
                s.starts_with("mod ")
                    || s.starts_with("pub mod ")
                    || s.starts_with("pub(crate) mod ")
            };
            if is_mod(t.trim_start_matches("#[cfg(test)]").trim_start()) || is_mod(next) {
                // A `mod x;` line declares a file: that file is a test module of its own.
                if next.ends_with(';') {
                    lines.next();
                    continue;
                }
                break;
            }
        }
        let code = match t.find("//") {
            Some(0) => "",
            _ => line,
        };
        kept.push_str(code);
        kept.push('\n');
    }
    kept
}

/// The module paths a file's code names: `crate::a::b::…` and `super::…`, each path's
/// segments as written (groups `{…}` expanded one level).
fn named_paths(module: &[String], text: &str) -> Vec<Vec<String>> {
    let bytes = text.as_bytes();
    let mut paths = Vec::new();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(ident(bytes[i - 1]) || bytes[i - 1] == b':');
        let base: Option<(Vec<String>, usize)> =
            if starts_word && bytes[i..].starts_with(b"crate::") {
                Some((Vec::new(), i + "crate::".len()))
            } else if starts_word && bytes[i..].starts_with(b"super::") {
                // `super` of a folder's mod.rs (module `a`) and of a file `a/b.rs` (module `a::b`)
                // is one module up either way.
                let mut j = i;
                let mut parent: Vec<String> = module.to_vec();
                while bytes[j..].starts_with(b"super::") {
                    parent.pop();
                    j += "super::".len();
                }
                Some((parent, j))
            } else {
                None
            };
        let Some((prefix, mut j)) = base else {
            i += 1;
            continue;
        };
        let mut segs = prefix.clone();
        loop {
            let start = j;
            while j < bytes.len() && ident(bytes[j]) {
                j += 1;
            }
            if j == start {
                break;
            }
            segs.push(text[start..j].to_string());
            if bytes[j..].starts_with(b"::{") {
                // One level of a group: `a::{b, c::d}`.
                let close =
                    (bytes[j..].iter().position(|&b| b == b'}')).map_or(bytes.len(), |k| j + k);
                for item in text[j + 3..close].split(',') {
                    let item: Vec<String> = item
                        .split(" as ")
                        .next()
                        .unwrap()
                        .trim()
                        .trim_matches(|c| c == '{' || c == '}')
                        .split("::")
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty() && s != "self" && s != "*")
                        .collect();
                    let mut p = segs.clone();
                    p.extend(item);
                    paths.push(p);
                }
                j = close;
                break;
            }
            if bytes[j..].starts_with(b"::") {
                j += 2;
            } else {
                break;
            }
        }
        paths.push(segs);
        i = j.max(i + 1);
    }
    paths
}

/// The file module a path lands in: its longest prefix that is a module of src/.
fn landing(modules: &BTreeSet<Vec<String>>, path: &[String]) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| modules.contains(p))
}

/// File → the files it imports (itself left out).
fn file_graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let sources = sources();
    let modules: BTreeSet<Vec<String>> = sources.iter().map(|(m, _)| m.clone()).collect();
    let mut graph = BTreeMap::new();
    for (module, text) in &sources {
        let mut to = BTreeSet::new();
        for path in named_paths(module, text) {
            if let Some(target) = landing(&modules, &path) {
                if &target != module {
                    to.insert(target);
                }
            }
        }
        graph.insert(module.clone(), to);
    }
    graph
}

/// The table's rows in their order: (layer, the layers it may import).
fn table() -> Vec<(String, BTreeSet<String>)> {
    let doc = std::fs::read_to_string(root().join(DOC)).unwrap();
    let start = doc
        .find(TABLE_HEADING)
        .unwrap_or_else(|| panic!("{DOC} has no {TABLE_HEADING:?} section"));
    let mut rows = Vec::new();
    for line in doc[start..].lines().skip(1) {
        if line.starts_with('#') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let name = cells[1].trim_matches('`').to_string();
        let uses = cells[2]
            .split(',')
            .map(|s| s.trim().trim_matches('`').to_string())
            .filter(|s| !s.is_empty() && s != "—")
            .collect();
        rows.push((name, uses));
    }
    rows
}

#[test]
fn the_dependency_table_is_the_import_graph_of_src() {
    let rows: BTreeMap<String, BTreeSet<String>> = table().into_iter().collect();
    let mut actual: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, targets) in file_graph() {
        let entry = actual.entry(file[0].clone()).or_default();
        for t in targets {
            if t[0] != file[0] {
                entry.insert(t[0].clone());
            }
        }
    }
    let mut wrong = Vec::new();
    for (layer, uses) in &actual {
        match rows.get(layer) {
            None => wrong.push(format!("src/{layer} has no row in the table")),
            Some(allowed) => {
                for u in uses.difference(allowed) {
                    wrong.push(format!("{layer} imports {u}, which its row does not name"));
                }
                for u in allowed.difference(uses) {
                    wrong.push(format!("{layer}'s row names {u}, which it does not import"));
                }
            }
        }
    }
    for layer in rows.keys().filter(|l| !actual.contains_key(*l)) {
        wrong.push(format!(
            "the table has a row for {layer}, which src/ does not hold"
        ));
    }
    assert!(wrong.is_empty(), "{DOC}:\n{}", wrong.join("\n"));
}

#[test]
fn the_table_orders_the_layers_bottom_up() {
    // Each row may name only rows above it: the table is the order of the layers, so no layer
    // imports one after it and no two import each other.
    let rows = table();
    for (i, (layer, uses)) in rows.iter().enumerate() {
        for u in uses {
            let at = rows.iter().position(|(l, _)| l == u);
            assert!(
                at.is_some_and(|at| at < i),
                "{layer} may import {u}, which is not a row above it"
            );
        }
    }
}

#[test]
fn no_file_of_src_imports_itself_around_a_circle() {
    let graph = file_graph();
    // Depth-first search with colours; a grey node met again closes a circle.
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        White,
        Grey,
        Black,
    }
    let mut mark: BTreeMap<&Vec<String>, Mark> = graph.keys().map(|k| (k, Mark::White)).collect();
    let mut circles = Vec::new();
    fn visit<'a>(
        node: &'a Vec<String>,
        graph: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        mark: &mut BTreeMap<&'a Vec<String>, Mark>,
        stack: &mut Vec<&'a Vec<String>>,
        circles: &mut Vec<String>,
    ) {
        mark.insert(node, Mark::Grey);
        stack.push(node);
        for next in &graph[node] {
            match mark[next] {
                Mark::White => visit(next, graph, mark, stack, circles),
                Mark::Grey => {
                    let from = stack.iter().position(|n| *n == next).unwrap();
                    let names: Vec<String> = stack[from..].iter().map(|m| m.join("::")).collect();
                    circles.push(format!("{} -> {}", names.join(" -> "), next.join("::")));
                }
                Mark::Black => {}
            }
        }
        stack.pop();
        mark.insert(node, Mark::Black);
    }
    for node in graph.keys() {
        if mark[node] == Mark::White {
            visit(node, &graph, &mut mark, &mut Vec::new(), &mut circles);
        }
    }
    assert!(
        circles.is_empty(),
        "files that import each other:\n{}",
        circles.join("\n")
    );
}

#[test]
fn no_file_of_src_is_over_a_thousand_lines() {
    let long: Vec<String> = rust_files(&root().join("src"))
        .into_iter()
        .filter_map(|path| {
            let n = std::fs::read_to_string(&path).unwrap().lines().count();
            (n > 1000).then(|| format!("{} has {n} lines", path.display()))
        })
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

#[test]
fn the_path_reader_sees_groups_super_and_skips_tests_and_comments() {
    let module = vec!["game".to_string(), "record".to_string()];
    let text = without_tests(
        "use crate::core::{board::Pos, rules};\n// crate::runner in a comment\nuse super::adjudicate::X;\n#[cfg(test)]\nmod tests {\n use crate::config::Y;\n}\n",
    );
    let paths = named_paths(&module, &text);
    let has = |p: &[&str]| {
        paths
            .iter()
            .any(|q| q.iter().map(String::as_str).eq(p.iter().copied()))
    };
    assert!(has(&["core", "board", "Pos"]), "{paths:?}");
    assert!(has(&["core", "rules"]), "{paths:?}");
    assert!(has(&["game", "adjudicate", "X"]), "{paths:?}");
    assert!(
        !paths.iter().any(|p| p[0] == "runner" || p[0] == "config"),
        "{paths:?}"
    );
}
