//! The check's closing items, from what its sessions left: each engine's end, processes left
//! behind, time, memory, the saved-files folder, output that was no answer, and the exit.

use super::*;

impl Checker {
    /// Ends a session: END, the exit status within the grace, and what it left running.
    pub(super) async fn end(&mut self, session: EngineSession) {
        self.end_sparing(session, None).await;
    }

    /// [`end`](Self::end) while the engine `spare` (a live one) runs.
    pub(super) async fn end_sparing(&mut self, mut session: EngineSession, spare: Option<u32>) {
        self.search_ignored += session.search_ignored();
        self.lines.add(&session.line_counts());
        let leader = session.process().and_then(|p| p.pid());
        let pgid = session.process().map(|p| p.pgid());
        let started = std::time::Instant::now();
        let alive = session.is_alive();
        let status = session.end_leader().await;
        let ms = started.elapsed().as_millis();
        // After the engine's exit and before its group is killed: what it left in the group,
        // and what escaped the group (reparented to the check, the subreaper).
        let spared: Vec<u32> = leader.into_iter().chain(spare).collect();
        let left = sweep(pgid, &spared).await;
        session.kill("ended");
        self.note_leftovers(
            &left,
            if alive {
                "after END"
            } else {
                "after it was killed"
            },
        );
        if !alive {
            return;
        }
        match status {
            Some(s) if s.contains("SIGKILL") => self.end_faults.push(format!(
                "did not exit within {} ms of END ({s})",
                self.opts.end_grace.as_millis()
            )),
            Some(s) if s != "exit status 0" => self
                .end_odd
                .push(format!("{s} {ms} ms after END (not status 0)")),
            Some(s) => self.end_notes.push(format!("{s} {ms} ms after END")),
            None => self.end_notes.push(format!("ended {ms} ms after END")),
        }
    }

    /// Records processes found running `when` an engine ended (killed since).
    pub(super) fn note_leftovers(&mut self, left: &[Leftover], when: &str) {
        // Under wine, wineserver and wine's services outlive every program it ran, by design:
        // they are no engine's (a judge on Windows never sees them). Killed all the same.
        let spec = &self.opts.spec;
        let launcher = spec.package.as_ref().and_then(|p| p.launcher.as_ref());
        // A package's Windows program runs under the launcher found for it: Wine.
        let wine = runs_under_wine(&spec.cmd) || launcher.is_some();
        let (wine_own, left): (Vec<&Leftover>, Vec<&Leftover>) =
            left.iter().partition(|l| wine && is_wine_own(&l.cmd));
        if !wine_own.is_empty() && self.wine_left.is_none() {
            let list: Vec<String> = wine_own.iter().map(|l| l.cmd.clone()).collect();
            self.wine_left = Some(list.join(", "));
        }
        if left.is_empty() {
            return;
        }
        let list: Vec<String> = left.iter().map(|l| l.to_string()).collect();
        self.leftovers.push(format!(
            "{} process(es) left running {when}: {}; the check killed them, the judge may not",
            left.len(),
            list.join(", ")
        ));
    }

    pub(super) fn report_time(&mut self) {
        let mut all = Timing::default();
        all.merge(&self.timing);
        let rows = [
            (
                format!("time {}", short_label(&self.opts.fast)),
                "fast",
                &self.timing,
            ),
            (
                format!("time {}", short_label(&self.opts.short)),
                "short",
                &self.short_timing,
            ),
        ];
        let mut items = Vec::new();
        for (name, _, timing) in rows {
            let label = name.trim_start_matches("time ").to_string();
            let faults: Vec<&String> = self
                .time_faults
                .iter()
                .filter(|f| f.starts_with(&format!("{label}:")))
                .collect();
            let seen = format!(
                "{} moves, slowest {} ms, smallest margin {} ms",
                timing.moves,
                timing.slowest.as_millis(),
                timing.margin_ms.map_or("-".into(), |m| m.to_string())
            );
            let item = if !faults.is_empty() {
                (name, Status::Fail, format!("{}; {seen}", faults[0]))
            } else if timing.moves == 0 {
                (name, Status::Skip, "no move was played".to_string())
            } else if timing.margin_ms.is_some_and(|m| m < 0) {
                (
                    name,
                    Status::Warn,
                    format!("over the limit, within the judge's tolerance: {seen}"),
                )
            } else {
                (name, Status::Pass, seen)
            };
            items.push(item);
        }
        for (n, s, d) in items {
            self.push(n, s, d);
        }
    }

    /// One reading of the engine's processes after an answer.
    pub(super) fn note_usage(&mut self, usage: crate::engine::resources::Usage) {
        self.peak_rss = self.peak_rss.max(usage.rss);
        match usage.footprint {
            Some(f) => {
                self.peak = self.peak.max(f.pss);
                self.peak_uss = self.peak_uss.max(f.uss);
            }
            None if usage.rss > 0 => {
                self.rss_only = true;
                self.peak = self.peak.max(usage.rss);
            }
            None => {}
        }
    }

    /// The peak memory against `max_memory` and the runner's limit (its tolerance on top), as
    /// summed PSS, with the summed USS and RSS beside it.
    pub(super) fn report_memory(&mut self) {
        let max = self.opts.spec.max_memory;
        let limit = self.opts.spec.memory_limit();
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let figures = if self.rss_only {
            format!(
                "RSS {:.1} MiB (smaps_rollup cannot be read: PSS and USS unknown, the limit is judged on RSS)",
                mib(self.peak_rss)
            )
        } else {
            format!(
                "PSS {:.1} MiB, USS {:.1} MiB, RSS {:.1} MiB (the limit is judged on PSS)",
                mib(self.peak),
                mib(self.peak_uss),
                mib(self.peak_rss)
            )
        };
        if let Some(fault) = self.memory_fault.clone() {
            self.push("memory", Status::Fail, fault);
        } else if let Some(limit) = limit.filter(|&l| self.peak > l) {
            self.push(
                "memory",
                Status::Fail,
                format!(
                    "peak over the limit {:.1} MiB (max_memory {:.1} MiB and its tolerance): {figures}",
                    mib(limit),
                    mib(max)
                ),
            );
        } else if max > 0 && self.peak > max {
            self.push(
                "memory",
                Status::Warn,
                format!(
                    "peak over max_memory {:.1} MiB, within the tolerance: {figures}",
                    mib(max)
                ),
            );
        } else {
            self.push(
                "memory",
                Status::Pass,
                format!(
                    "peak of the process tree {figures}; max_memory {:.1} MiB",
                    mib(max)
                ),
            );
        }
    }

    pub(super) fn report_folder(&mut self) {
        let size = dir_size(&self.opts.folder);
        let mib = size as f64 / (1024.0 * 1024.0);
        if size > FOLDER_LIMIT {
            self.push(
                "folder",
                Status::Fail,
                format!("{mib:.1} MiB saved, over the judge's 70 MiB"),
            );
        } else {
            self.push("folder", Status::Pass, format!("{mib:.1} MiB saved"));
        }
    }

    /// MESSAGE spam, stderr and lines that are not protocol, from the session's log events.
    pub(super) fn report_output(&mut self) {
        let (mut messages, mut long, mut stderr, mut noise) = (0usize, 0usize, 0usize, 0usize);
        let mut first_noise = None;
        // The answers to ABOUT and SWAP2BOARD are free text to the line parser: the first line
        // after either that is not MESSAGE/DEBUG is that answer, not noise.
        let mut about_asked = false;
        let mut swap_asked = false;
        self.drain();
        for ev in &self.seen {
            match ev.direction {
                Direction::Stderr => stderr += 1,
                Direction::ToEngine => {
                    about_asked = ev.text == "ABOUT" || ev.text == "DONE" && swap_asked;
                    swap_asked = ev.text == "SWAP2BOARD" || swap_asked && ev.text != "DONE";
                }
                Direction::FromEngine if about_asked => {
                    // Banners before the answer are part of it; the answer ends the wait.
                    // `OK` is the answer to the START/RESTART written in the same batch
                    // before it, `ERROR`/`UNKNOWN` an engine's word on an INFO line of it (Rapfi
                    // on an unknown key): the ABOUT answer is still to come (the next command
                    // ends the wait in any case).
                    about_asked = matches!(
                        parse_engine_line(&ev.text),
                        None | Some(EngineLine::Message(_))
                            | Some(EngineLine::Debug(_) | EngineLine::Info(_))
                            | Some(EngineLine::Ok)
                            | Some(EngineLine::Error(_))
                            | Some(EngineLine::Unknown(_))
                    );
                }
                Direction::FromEngine => match parse_engine_line(&ev.text) {
                    Some(EngineLine::Message(text)) => {
                        messages += 1;
                        if text.chars().count() > MESSAGE_CHARS {
                            long += 1;
                        }
                    }
                    // An ABOUT answer is never noise, however late (after a refusal of an INFO
                    // line, an engine's ABOUT answer may come after the next command).
                    Some(EngineLine::Unrecognised(text)) if !self.is_about_answer(&text) => {
                        noise += 1;
                        first_noise.get_or_insert_with(|| cut(&text, 60));
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        let moves = (self.timing.moves + self.short_timing.moves).max(1);
        if long > 0 || messages > MESSAGES_PER_MOVE * moves {
            self.push(
                "messages",
                Status::Warn,
                format!("{messages} MESSAGE lines in {moves} moves, {long} over {MESSAGE_CHARS} characters"),
            );
        } else {
            self.push(
                "messages",
                Status::Pass,
                format!("{messages} MESSAGE lines in {moves} moves"),
            );
        }
        if stderr > 0 {
            self.push("stderr", Status::Warn, format!("{stderr} lines on stderr"));
        } else {
            self.push("stderr", Status::Pass, "nothing on stderr");
        }
        match first_noise {
            Some(first) => self.push(
                "noise",
                Status::Warn,
                format!("{noise} lines that are not protocol, first: {first:?}"),
            ),
            None => self.push("noise", Status::Pass, "every line is protocol"),
        }
        let (status, detail) = stray_verdict(&self.lines);
        self.push_informational("stray lines", status, detail);
        let (status, detail) = self.search.verdict(self.search_ignored, moves);
        self.push_informational("search output", status, detail);
    }

    /// Whether `line` is the engine's ABOUT answer: the one it gave, or any with a `name` field.
    pub(super) fn is_about_answer(&self, line: &str) -> bool {
        let line = line.trim();
        self.about_raw.as_deref() == Some(line)
            || crate::engine::parse_about(line).get("name").is_some()
    }

    pub(super) fn report_end(&mut self) {
        if let Some(f) = self.end_faults.first().cloned() {
            self.push("end", Status::Fail, f);
        } else if let Some(n) = self.end_odd.first().cloned() {
            self.push("end", Status::Warn, n);
        } else if let Some(n) = self.end_notes.first().cloned() {
            self.push("end", Status::Pass, n);
        } else {
            self.push("end", Status::Skip, "no session reached END alive");
        }
        let wine = match &self.wine_left {
            Some(list) => format!(" (wine's own processes were, as wine leaves them: {list})"),
            None => String::new(),
        };
        match self.leftovers.first().cloned() {
            Some(l) => self.push("leftover", Status::Fail, l),
            None => self.push(
                "leftover",
                Status::Pass,
                format!("nothing of the engine's left running after END{wine}"),
            ),
        }
    }
}

/// Bytes in the files under `dir` (0 when it is missing).
fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

fn cut(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}
