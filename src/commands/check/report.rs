//! The check's report: its items (pass, warn, fail or skip, and whether the Gomocup judge acts
//! on them), the table printed a line per item, the counts and the closing verdict.

use serde::Serialize;

/// What a check item found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Warn,
    Fail,
    /// Not checked (the feature is not built, or an earlier failure left nothing to check).
    Skip,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Short stable name (`start 15`, `begin`, `play renju`, `time 1s`...).
    pub name: String,
    pub status: Status,
    /// What was seen.
    pub detail: String,
    /// Whether the Gomocup judge acts on this item (rejects, disqualifies or forfeits the
    /// engine when it fails); `false` for what only Piskvork or other managers send (the
    /// winning-line field of BOARD, TAKEBACK, an INFO key no judge sends).
    pub judge: bool,
}

/// Items whose failure the Gomocup judge never meets: it never sends field 3 in BOARD (only
/// Piskvork's continuous game does), TAKEBACK (Piskvork's undo) or an unknown INFO key.
pub(super) const INFORMATIONAL: [&str; 2] = ["board winning line", "takeback"];

/// The items, in the order they were checked.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    pub engine: String,
    pub items: Vec<Item>,
    /// Stopped by a signal before its end: `items` are those decided by then (in JSON only
    /// when true).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// The width of the item names in the table: the longest of the fixed names
/// (`board winning line`), so that lines printed as the items come line up.
const NAME_WIDTH: usize = 18;

impl Item {
    /// The item's line of the table: `STATUS  ITEM  DETAIL`.
    pub fn line(&self) -> String {
        format!(
            "{:<4}  {:<NAME_WIDTH$}  {}\n",
            self.status.label(),
            self.name,
            self.detail
        )
    }
}

impl CheckReport {
    pub fn failures(&self) -> usize {
        self.items
            .iter()
            .filter(|i| i.status == Status::Fail)
            .count()
    }

    /// The failed items the Gomocup judge acts on, by name.
    pub fn judge_failures(&self) -> Vec<&str> {
        self.items
            .iter()
            .filter(|i| i.status == Status::Fail && i.judge)
            .map(|i| i.name.as_str())
            .collect()
    }

    /// The closing line of a check with failures: which of them the judge acts on.
    pub fn verdict(&self) -> Option<String> {
        let failed = self.failures();
        if failed == 0 {
            return None;
        }
        let judge = self.judge_failures();
        let others: Vec<&str> = self
            .items
            .iter()
            .filter(|i| i.status == Status::Fail && !i.judge)
            .map(|i| i.name.as_str())
            .collect();
        let rest = if others.is_empty() {
            String::new()
        } else {
            format!(
                "; {} only informational (the judge never sends what it tests)",
                others.join(", ")
            )
        };
        Some(if judge.is_empty() {
            format!(
                "{failed} check item(s) failed, none that the Gomocup judge acts on: {} (the judge never sends what they test)",
                others.join(", ")
            )
        } else {
            format!(
                "{failed} check item(s) failed: the judge would reject or disqualify this engine on {}{rest}",
                judge.join(", ")
            )
        })
    }

    /// The table's first line, for a check of `engine`.
    pub fn heading(engine: &str) -> String {
        format!("check of {engine}\n")
    }

    /// The table: the heading, `STATUS  ITEM  DETAIL` per item, then the count line.
    pub fn table(&self) -> String {
        let mut out = Self::heading(&self.engine);
        for i in &self.items {
            out.push_str(&i.line());
        }
        out.push_str(&self.counts());
        out
    }

    /// The table's last line: the items by status (and, after a signal, that the check
    /// stopped).
    pub fn counts(&self) -> String {
        let count = |s: Status| self.items.iter().filter(|i| i.status == s).count();
        format!(
            "{} pass, {} warn, {} fail ({} the judge acts on), {} skip{}\n",
            count(Status::Pass),
            count(Status::Warn),
            count(Status::Fail),
            self.judge_failures().len(),
            count(Status::Skip),
            match self.interrupted {
                true => " (interrupted: the items above are those checked before it)",
                false => "",
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closing_line_names_the_failures_the_judge_acts_on() {
        let item = |name: &str, status, judge| Item {
            name: name.into(),
            status,
            detail: String::new(),
            judge,
        };
        let mut report = CheckReport {
            engine: "x".into(),
            items: vec![item("begin", Status::Pass, true)],
            interrupted: false,
        };
        assert_eq!(report.verdict(), None);
        report
            .items
            .push(item("board winning line", Status::Fail, false));
        let only = report.verdict().unwrap();
        assert!(
            only.contains("none that the Gomocup judge acts on: board winning line"),
            "{only}"
        );
        report.items.push(item("memory", Status::Fail, true));
        let both = report.verdict().unwrap();
        assert!(
            both.starts_with("2 check item(s) failed: the judge would reject or disqualify this engine on memory; board winning line only informational"),
            "{both}"
        );
    }

    #[test]
    fn lines_printed_as_items_come_line_up_and_an_interrupted_table_says_so() {
        let item = |name: &str| Item {
            name: name.into(),
            status: Status::Pass,
            detail: "d".into(),
            judge: true,
        };
        let mut report = CheckReport {
            engine: "x".into(),
            items: vec![item("prefix"), item("board winning line")],
            interrupted: false,
        };
        assert_eq!(
            report.table(),
            "check of x\npass  prefix              d\npass  board winning line  d\n\
             2 pass, 0 warn, 0 fail (0 the judge acts on), 0 skip\n"
        );
        report.interrupted = true;
        assert!(report
            .counts()
            .ends_with("0 skip (interrupted: the items above are those checked before it)\n"));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["interrupted"], true);
        report.interrupted = false;
        let json = serde_json::to_value(&report).unwrap();
        assert!(json.get("interrupted").is_none(), "{json}");
    }
}
