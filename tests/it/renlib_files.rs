//! Every RenLib sample in `../shared/testdata/renlib`: written back byte for byte, `lib stats`
//! equal to `samples_summary.json`, `lib dump --paths` starting with the summary's `first_lines`,
//! comments decoded in their code page and written back in it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{renlib_testdata, runner};
use gomoku_cli::formats::renlib::stats::LibStats;
use gomoku_cli::formats::renlib::{read, to_bytes, CodePage, Comment, Library, NodeId};
use serde_json::Value;

/// The summary's entries with their files, or `None` when the test data is absent.
fn samples() -> Option<Vec<(PathBuf, Value)>> {
    let dir = renlib_testdata()?;
    let text = std::fs::read_to_string(dir.join("samples_summary.json")).unwrap();
    let summary: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(
        summary.len() >= 5,
        "the summary lists {} files",
        summary.len()
    );
    Some(
        summary
            .into_iter()
            .map(|v| (dir.join(v["file"].as_str().unwrap()), v))
            .collect(),
    )
}

fn load(path: &Path) -> (Vec<u8>, Library) {
    let bytes = std::fs::read(path).unwrap();
    let lib = read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (bytes, lib)
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(runner()).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_sample_round_trips_byte_identically() {
    let Some(samples) = samples() else { return };
    for (path, _) in &samples {
        let (bytes, lib) = load(path);
        assert!(lib.node_count() > 0, "{}", path.display());
        let back = to_bytes(&lib);
        assert!(
            back == bytes,
            "{} does not write back identically",
            path.display()
        );
    }
}

#[test]
fn library_stats_equal_the_summary() {
    let Some(samples) = samples() else { return };
    for (path, want) in &samples {
        let (_, lib) = load(path);
        let got = serde_json::to_value(LibStats::of(&lib)).unwrap();
        for field in [
            "version",
            "size",
            "nodes",
            "bytes_consumed",
            "leaves",
            "comments",
            "boardtexts",
            "marks",
            "starts",
            "max_depth",
            "first_node",
            "flag_bits_seen",
        ] {
            assert_eq!(got[field], want[field], "{}: {field}", path.display());
        }
    }
}

#[test]
fn lib_stats_json_reproduces_the_summary() {
    let Some(samples) = samples() else { return };
    for (path, want) in &samples {
        let (code, out, err) = cli(&["lib", "stats", "--json", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let got: Value = serde_json::from_str(&out).unwrap();
        for (field, value) in want.as_object().unwrap() {
            if field == "first_lines" || field == "first_comment_raw_prefix" {
                continue; // from `lib dump --paths` and the comment test below
            }
            assert_eq!(&got[field], value, "{}: {field}", path.display());
        }
        let (code, text, _) = cli(&["lib", "stats", path.to_str().unwrap()]);
        assert_eq!(code, 0);
        let nodes = want["nodes"].as_u64().unwrap();
        assert!(
            text.contains(&format!("nodes:         {nodes}\n")),
            "{text}"
        );
    }
}

#[test]
fn dump_paths_begin_with_the_summary_first_lines() {
    let Some(samples) = samples() else { return };
    for (path, want) in &samples {
        let (code, out, err) = cli(&["lib", "dump", "--paths", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let first: Vec<&str> = want["first_lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        let got: Vec<&str> = out.lines().take(first.len()).collect();
        assert_eq!(got, first, "{}", path.display());
        assert_eq!(
            out.lines().count() as u64,
            want["leaves"].as_u64().unwrap(),
            "one line per leaf: {}",
            path.display()
        );
    }
}

/// The first comment in file order.
fn first_comment(lib: &Library) -> Option<(NodeId, &Comment)> {
    lib.preorder()
        .find_map(|id| lib.comment(id).map(|c| (id, c)))
}

#[test]
fn first_comments_match_the_summary_prefix() {
    let Some(samples) = samples() else { return };
    for (path, want) in &samples {
        let (_, lib) = load(path);
        let (_, c) = first_comment(&lib).expect("a comment");
        // The summary shows the raw bytes one character per byte (Latin-1).
        let latin1: String = c.content().iter().map(|&b| b as char).collect();
        let prefix = want["first_comment_raw_prefix"].as_str().unwrap();
        assert!(latin1.starts_with(prefix), "{}: {latin1:?}", path.display());
    }
}

#[test]
fn gbk_comments_decode_and_encode_back() {
    let Some(dir) = renlib_testdata() else { return };
    let (_, lib) = load(&dir.join("Allrenjuopenings.lib"));
    let gbk: CodePage = "gbk".parse().unwrap();
    let mut decoded_all = 0;
    for id in lib.preorder() {
        let Some(c) = lib.comment(id) else { continue };
        let text = gbk.decode(&c.content()).into_owned();
        if !text.contains('\u{FFFD}') {
            assert_eq!(gbk.encode(&text), c.content().to_vec());
            decoded_all += 1;
        }
    }
    let (_, c) = first_comment(&lib).unwrap();
    let text = c.decoded(gbk, "\n");
    assert!(
        text.starts_with("Welcome to RenLib\n★欢迎使用Renlib棋谱库软件！"),
        "{text}"
    );
    assert!(decoded_all > 900, "{decoded_all} comments decode as GBK");
    let (code, out, _) = cli(&[
        "lib",
        "dump",
        "--encoding",
        "gbk",
        dir.join("Allrenjuopenings.lib").to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out
        .lines()
        .next()
        .unwrap()
        .contains("★欢迎使用Renlib棋谱库软件"));
}

#[test]
fn damaged_files_are_errors_with_an_offset() {
    let Some(dir) = renlib_testdata() else { return };
    let bytes = std::fs::read(dir.join("D4.lib")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let cut = tmp.path().join("cut.lib");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let (code, _, err) = cli(&["lib", "stats", cut.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("offset 4547: the file ends; expected"),
        "{err}"
    );
    let (code, _, err) = cli(&["lib", "dump", tmp.path().join("none.lib").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read"), "{err}");
}
