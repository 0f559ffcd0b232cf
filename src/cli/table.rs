//! The one table of options: for every command, each option's spellings, value syntax, section,
//! help text and what it takes. The parsers (`cli::parse`), `--help`/`help CMD`, the man page and
//! docs/reference/options.md all come from it (`cli::help`), so they cannot disagree.
//!
//! To add an option: a row in `ROWS` (its commands, spellings, value, what it takes, section,
//! help, an example value); for the match runner also an `Opt` variant (`opts!` in `cli.rs`) named
//! by the row, read in `config.rs`; for a subcommand, its `*Args` field filled in
//! `commands/args.rs` (check, tune and openings generate read `p.value("-name")` in their `run`).
//! A key of a `key=value` option is a row of its own (`Takes::Key`). Then
//! `GOMOKU_CLI_BLESS=1 cargo test --lib cli::help` rewrites the reference and the man page, and
//! the guide (docs/guide/) must name it (tests/it/examples.rs).

use crate::cli::Opt;

/// A command of the program: the match runner (no command word) or a subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Command {
    Run,
    Check,
    Tune,
    Judge,
    Sprt,
    SamplesStats,
    Export,
    Merge,
    Ratings,
    LibStats,
    LibDump,
    LibMerge,
    Report,
    OpeningsCanonical,
    OpeningsAudit,
    OpeningsGenerate,
    EnginesList,
    EnginesAdd,
    EnginesCheck,
}

impl Command {
    /// Every command, in the order the help lists them.
    pub const ALL: [Command; 19] = [
        Command::Run,
        Command::Check,
        Command::Tune,
        Command::Judge,
        Command::Sprt,
        Command::SamplesStats,
        Command::Export,
        Command::Merge,
        Command::Ratings,
        Command::LibStats,
        Command::LibDump,
        Command::LibMerge,
        Command::Report,
        Command::OpeningsCanonical,
        Command::OpeningsAudit,
        Command::OpeningsGenerate,
        Command::EnginesList,
        Command::EnginesAdd,
        Command::EnginesCheck,
    ];

    /// The words that name it after the program name (none for the match runner).
    pub fn words(self) -> &'static [&'static str] {
        match self {
            Command::Run => &[],
            Command::Check => &["check"],
            Command::Tune => &["tune"],
            Command::Judge => &["judge"],
            Command::Sprt => &["sprt"],
            Command::SamplesStats => &["samples", "stats"],
            Command::Export => &["export"],
            Command::Merge => &["merge"],
            Command::Ratings => &["ratings"],
            Command::LibStats => &["lib", "stats"],
            Command::LibDump => &["lib", "dump"],
            Command::LibMerge => &["lib", "merge"],
            Command::Report => &["report"],
            Command::OpeningsCanonical => &["openings", "canonical"],
            Command::OpeningsAudit => &["openings", "audit"],
            Command::OpeningsGenerate => &["openings", "generate"],
            Command::EnginesList => &["engines", "list"],
            Command::EnginesAdd => &["engines", "add"],
            Command::EnginesCheck => &["engines", "check"],
        }
    }

    /// `gomoku-cli lib merge`, `gomoku-cli` for the match runner.
    pub fn title(self) -> String {
        let mut t = String::from("gomoku-cli");
        for w in self.words() {
            t.push(' ');
            t.push_str(w);
        }
        t
    }

    /// The command's arguments in short, after its words.
    pub fn synopsis(self) -> &'static str {
        match self {
            Command::Run => "[-each ENGINE_OPTIONS] -engine ENGINE_OPTIONS -engine ENGINE_OPTIONS ... [OPTIONS]",
            Command::Check => "-engine cmd=COMMAND [ENGINE_OPTIONS] [-rule R,...] [-boardsize N,...] [-startuptimeout S] [--json]",
            Command::Tune => "-engine cmd=COMMAND [ENGINE_OPTIONS] -params FILE -iterations N [-pairs P] [-spsa ...] [-tuneout ...] [-srand S] [match options]",
            Command::Judge => "[--rule R] [--boardsize N] [--to-move black|white] [--strict] [FILE...]",
            Command::Sprt => "(--ptnml LL,LD,WL+DD,WD,WW | --wld W,L,D | JOURNAL...) [--elo0 E] [--elo1 E] [--alpha A] [--beta B] [--model M] [--json] [--force]",
            Command::SamplesStats => "FILE [--format csv|bin|bin_lz4|binpack|binpack_lz4]",
            Command::Export => "JOURNAL... [-pgn F] [-sgf F] [-msg F] [-psq DIR] [-sample key=value...] [-records evals=off] [--force]",
            Command::Merge => "RUNDIR|JOURNAL... [--json] [-pgn F] [-sgf F] [-msg F] [-psq DIR] [-sample key=value...] [-records evals=off] [--force]",
            Command::Ratings => "INPUT... [--advantage E] [--drawelo E] [--prior N] [--offset E] [--confidence P] [--min-games N] [--max-faults SHARE] [--gomocup] [--bayeselo-grid] [--los] [--json] [--force]",
            Command::LibStats => "FILE [--json]",
            Command::LibDump => "FILE [--paths] [--notation renju|pos] [--encoding E]",
            Command::LibMerge => "-o OUT.lib [--into EXISTING.lib] [--stats] [--encoding E] [--force] INPUTS...",
            Command::Report => "RUNDIR|JOURNAL... [-o report.html] [--force]",
            Command::OpeningsCanonical => "FILE [type=offset|pos] [-o OUT] [--boardsize N] [--rule R] [--counts F]",
            Command::OpeningsAudit => "RUNDIR|JOURNAL... [--json] [--force]",
            Command::OpeningsGenerate => "-engine cmd=COMMAND depth=N|nodes=N|tc=T [ENGINE_OPTIONS] -count N -o FILE [-stones MIN-MAX] [-area R] [-balance E] [...]",
            Command::EnginesList => "[-engines FILE] [--json]",
            Command::EnginesAdd => "NAME cmd=COMMAND [ENGINE_OPTIONS] [-engines FILE] [--force]",
            Command::EnginesCheck => "NAME [-engines FILE] [-rule R,...] [-boardsize N,...] [-startuptimeout S] [--json]",
        }
    }

    /// What the command does, in a paragraph.
    pub fn about(self) -> &'static str {
        match self {
            Command::Run => "Plays a tournament between engines speaking the Gomocup (pbrain) protocol: c-gomoku-cli's command line, with a journal that makes every run resumable.",
            Command::Check => "What the Gomocup judge will see of an engine: runs it through short scripted sessions and prints one line per item (pass, warn, fail, skip); exit code 1 when any item fails, the closing line naming those the judge acts on. Every game is played under the first -rule; tc= is replaced by the check's 5s/120s and 1s/20s.",
            Command::Tune => "SPSA tuning of one engine's parameters: θ+ against θ−, each iteration P colour-swapped game pairs on one opening. A parameter whose {name} appears in cmd= is put there (the engine restarts when it changes); the others are sent as INFO name value before every game. The run is a match run in every other way (journal, -resume, shards, records, report); its last lines on standard output are `name, value` per parameter.",
            Command::Judge => "Judges positions: one per input line (pos-notation moves, or SIZE:ROW/ROW/...), one JSON object per line out: {\"size\":15,\"rule\":\"renju\",\"to_move\":\"black\",\"winner\":null,\"forbidden\":[...]}. A line that cannot be judged gives {\"error\":...,\"line\":N,\"input\":...} and exit code 1.",
            Command::Sprt => "SPRT and Elo calculator: from pentanomial or W/L/D counts, or from the journal files of a run (its own -sprt design, replayed in the order games finished).",
            Command::SamplesStats => "What a training sample file (-sample) holds: counts, evaluations and multi-PV groups, results, board sizes, rules, a histogram of stones per sample. A damaged file: the statistics of its complete part, exit code 1.",
            Command::Export => "Rebuilds a run's PGN, SGF, messages, .psq records or samples from its journals, through the runner's own writers: the same bytes the run wrote. Files that already hold something are not written over.",
            Command::Merge => "The combined results of a run's journals (the shards of one run), printed as one unsharded run prints them, and optionally its records in game order.",
            Command::Ratings => "The rating list of many engines from their games (journals, run directories, PGN files): BayesElo's model and numbers (minorization-maximization with its prior, the first mover's advantage and the draw Elo estimated or fixed, error bars as its exactdist), printed as BayesElo's ratings table; Gomocup's list with --gomocup.",
            Command::LibStats => "A RenLib .lib library's version, nodes, leaves, comments, board texts, marks, starts and maximum depth.",
            Command::LibDump => "A RenLib library's tree as indented text (comments decoded), or one line per path from the top to a leaf.",
            Command::LibMerge => "Merges games (journals, SGF files, Piskvork .psq records, pos-notation game lists: one game a line) and libraries into one RenLib library, each game in the symmetry that follows the tree deepest; written atomically.",
            Command::Report => "The HTML report of a run (charts, standings, game list and viewer) from its journals, written atomically.",
            Command::OpeningsCanonical => "Rewrites an opening file with every opening in canonical form under the 8 symmetries, duplicates removed (first occurrence's order kept); a summary on standard error.",
            Command::OpeningsAudit => "Per opening (canonical under the 8 symmetries): games, black's score, colour-reversed pairs, length and endings; openings decided by colour flagged.",
            Command::OpeningsGenerate => "Balanced openings: random candidates of MIN to MAX stones within distance R of the centre, each searched by the engine (BOARD, one move asked) and kept when its evaluation is within ±E (a mate never). FILE.progress records every evaluation: the same command after a kill goes on where it stopped and gives the same FILE.",
            Command::EnginesList => "The engines of the engines file (-engines FILE, else $GOMOKU_CLI_ENGINES, else $XDG_CONFIG_HOME/gomoku-cli/engines.json, else ~/.config/gomoku-cli/engines.json): name, command and settings, one a line. `-engine conf=NAME` uses one of them.",
            Command::EnginesAdd => "Adds the engine NAME to the engines file (created with its folder when missing), its settings written as -engine takes them; the file is checked and replaced atomically, its other engines kept. An engine of that name is refused unless --force replaces it.",
            Command::EnginesCheck => "`gomoku-cli check` on the engine NAME of the engines file: the same items, verdicts and exit codes.",
        }
    }

    /// The command named by the words after the program name, and how many words that took.
    pub fn of_words(args: &[String]) -> Option<(Command, usize)> {
        Command::ALL
            .into_iter()
            .filter(|c| !c.words().is_empty())
            .find(|c| {
                c.words().len() <= args.len() && c.words().iter().zip(args).all(|(w, a)| w == a)
            })
            .map(|c| (c, c.words().len()))
    }
}

/// Whether the `key=value` lists of an option given several times add up (`-each`, as in
/// c-gomoku-cli) rather than the last replacing the others (`-openings`, `-sample`, ...: a
/// script may give a default and then its own). Where they add up, a key in two of them is a
/// key given twice.
pub fn lists_add_up(option: &str) -> bool {
    option == "-each"
}

/// What follows an option on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// Nothing.
    Flag,
    /// One value (`-games 4`, `--rule=4`).
    Value,
    /// `key=value` settings up to the next option; `empty` allows none (`-sample` alone), `pair`
    /// also reads c-gomoku-cli's `COUNT SCORE` (`-draw 8 20`).
    Settings { empty: bool, pair: bool },
    /// A `key=value` setting of the option `parent` names (a row of its own, for the help and
    /// the checks).
    Key { parent: &'static str },
    /// A word that is not an option: `min` to `max` of them.
    Positional { min: usize, max: Option<usize> },
}

/// Where the help lists an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    Arguments,
    Engine,
    Tuning,
    Games,
    Openings,
    Adjudication,
    Records,
    Cluster,
    Console,
    Options,
}

impl Section {
    pub fn title(self) -> &'static str {
        match self {
            Section::Arguments => "ARGUMENTS",
            Section::Engine => {
                "ENGINE OPTIONS (after -engine, or -each for every engine; a per-engine value wins)"
            }
            Section::Tuning => "TUNING OPTIONS",
            Section::Games => "GAMES",
            Section::Openings => "OPENINGS",
            Section::Adjudication => "ADJUDICATION",
            Section::Records => "JOURNAL, RECORDS AND REPORTS",
            Section::Cluster => "CLUSTERS",
            Section::Console => "CONSOLE",
            Section::Options => "OPTIONS",
        }
    }
}

/// One option of one or more commands.
#[derive(Debug)]
pub struct Row {
    /// The commands that take it.
    pub commands: &'static [Command],
    /// Its spellings, the first the one shown. Every option may be written with one dash or two
    /// (`-json`, `--json`); a key is written without its `=`; a positional by its placeholder.
    pub names: &'static [&'static str],
    /// The syntax of its value (`N`, `FILE`, `key=value...`); empty for a flag.
    pub value: &'static str,
    pub takes: Takes,
    pub section: Section,
    pub help: &'static str,
    /// The match runner's typed option it fills (`RawCli`), for the rows of run and tune.
    pub opt: Option<Opt>,
    /// Value words that parse, for the tests that every row parses in its command.
    pub example: &'static [&'static str],
}

impl Row {
    /// The spelling shown (`-games`, `--json`, `cmd`).
    pub fn name(&self) -> &'static str {
        self.names[0]
    }

    /// Whether `word` (dashes stripped) is one of its spellings.
    pub fn is_spelled(&self, word: &str) -> bool {
        self.names.iter().any(|n| n.trim_start_matches('-') == word)
    }

    pub fn is_option(&self) -> bool {
        !matches!(self.takes, Takes::Key { .. } | Takes::Positional { .. })
    }
}

use Command::*;

const RUN: &[Command] = &[Run];
const RUN_TUNE: &[Command] = &[Run, Tune];
const ENGINE_USERS: &[Command] = &[Run, Tune, Check, OpeningsGenerate];
const BOARD_USERS: &[Command] = &[Run, Tune, OpeningsGenerate];
const RECORD_USERS: &[Command] = &[Run, Tune, Export, Merge];
const STARTUP_USERS: &[Command] = &[Run, Tune, Check, OpeningsGenerate, EnginesCheck];
const CHECK_USERS: &[Command] = &[Check, EnginesCheck];
const SHARD_USERS: &[Command] = &[Run, Tune, OpeningsGenerate];
const ENGINES_FILE_USERS: &[Command] = &[
    Run,
    Tune,
    Check,
    OpeningsGenerate,
    EnginesList,
    EnginesAdd,
    EnginesCheck,
];

macro_rules! row {
    ($c:expr, [$($n:literal),+], $v:literal, $t:expr, $s:ident, $o:expr, [$($e:literal),*], $h:literal) => {
        Row {
            commands: $c,
            names: &[$($n),+],
            value: $v,
            takes: $t,
            section: Section::$s,
            help: $h,
            opt: $o,
            example: &[$($e),*],
        }
    };
}

const FLAG: Takes = Takes::Flag;
const VALUE: Takes = Takes::Value;
const SETTINGS: Takes = Takes::Settings {
    empty: false,
    pair: false,
};
const SETTINGS_OR_NONE: Takes = Takes::Settings {
    empty: true,
    pair: false,
};
const SCORE_SETTINGS: Takes = Takes::Settings {
    empty: false,
    pair: true,
};
const fn key(parent: &'static str) -> Takes {
    Takes::Key { parent }
}
const fn positional(min: usize, max: Option<usize>) -> Takes {
    Takes::Positional { min, max }
}

/// Every option of every command.
pub static ROWS: &[Row] = &[
    // ---- engines (run, tune, check, openings generate)
    row!(ENGINE_USERS, ["-engine"], "ENGINE_OPTIONS", SETTINGS, Engine, Some(Opt::Engine), ["cmd=/bin/sh"],
        "an engine: its key=value settings (below); once per engine"),
    row!(ENGINE_USERS, ["-each"], "ENGINE_OPTIONS", SETTINGS, Engine, Some(Opt::Each), ["tc=10/1"],
        "settings for every engine (a value given with -engine wins)"),
    row!(ENGINE_USERS, ["cmd"], "COMMAND", key("-engine"), Engine, None, ["/bin/sh"],
        "command to run; with a '/' in the program path it runs in that directory (cmd=../Engines/Wine2.0 runs ./Wine2.0 in ../Engines); arguments and quotes work: \"cmd=../fooEngine -foo=1\""),
    row!(ENGINE_USERS, ["name"], "NAME", key("-engine"), Engine, None, ["Wine"],
        "engine name (default: the name of its ABOUT answer, else the program name; duplicates get #2, #3)"),
    row!(ENGINE_USERS, ["pkg"], "FILE.zip", key("-engine"), Engine, None, ["EMBRYO21.F.zip"],
        "a Gomocup engine package instead of cmd=: unpacked once into ~/.cache/gomoku-cli/packages/<its SHA-256>, the program for the run's rule and board size picked as GomocupJudge picks it, a .exe run through Wine (wine on PATH, or $WINE) in the package's folder"),
    row!(ENGINE_USERS, ["tc"], "M[/T][+I]", key("-engine"), Engine, None, ["180/30+1"],
        "match time / turn time / increment in seconds (tc=60: both 60; tc=0/5: 5 s a move, no match limit)"),
    row!(ENGINE_USERS, ["depth"], "N", key("-engine"), Engine, None, ["6"], "sent as INFO max_depth N"),
    row!(ENGINE_USERS, ["nodes"], "N", key("-engine"), Engine, None, ["100000"], "sent as INFO max_node N"),
    row!(ENGINE_USERS, ["maxmemory"], "BYTES", key("-engine"), Engine, None, ["367001600"],
        "INFO max_memory (default 367001600 = 350 MiB), enforced while the engine thinks with a tolerance of a tenth, at least 32 MiB: over it the engine loses (0: no limit)"),
    row!(ENGINE_USERS, ["thread"], "N", key("-engine"), Engine, None, ["2"], "sent as INFO thread_num N"),
    row!(ENGINE_USERS, ["tolerance"], "S", key("-engine"), Engine, None, ["3"],
        "seconds an engine may run over its limit before it loses on time (default 3)"),
    row!(ENGINE_USERS, ["detail"], "off|0-3", key("-engine"), Engine, None, ["2"],
        "search output asked for: INFO show_detail N before each game (default 2; off sends nothing; an option.show_detail= of your own replaces it)"),
    row!(ENGINE_USERS, ["option.K"], "V", key("-engine"), Engine, None, ["hash=64"],
        "sent as INFO K V before each game"),
    row!(RUN_TUNE, ["slots"], "N", key("-engine"), Engine, None, ["1"],
        "at most N games of this engine at once (a GPU engine: slots=1); its other games wait while slots play the rest (default: no cap)"),
    row!(RUN_TUNE, ["restart"], "on|off", key("-engine"), Engine, None, ["on"],
        "on: a fresh process for every game; off: one process plays a slot's games in a row, with RESTART (default off)"),
    // ---- tune's own
    row!(&[Tune], ["-params"], "FILE", VALUE, Tuning, None, ["p.txt"],
        "the parameters: OpenBench lines `name, int|float, start, min, max, c_end, r_end`, or Rapfi's tuning table `name,value,min,max,c_end,r_end`"),
    row!(&[Tune], ["-iterations"], "N", VALUE, Tuning, None, ["20"], "SPSA iterations (required)"),
    row!(&[Tune], ["-pairs"], "P", VALUE, Tuning, None, ["2"], "game pairs per iteration (default 1)"),
    row!(&[Tune], ["-spsa"], "key=value...", SETTINGS, Tuning, None, ["alpha=0.602"],
        "SPSA's gains (below)"),
    row!(&[Tune], ["alpha"], "A", key("-spsa"), Tuning, None, ["0.602"], "step decay, 0 < A <= 1 (default 0.602)"),
    row!(&[Tune], ["gamma"], "G", key("-spsa"), Tuning, None, ["0.101"], "perturbation decay, 0 <= G < 1 (default 0.101)"),
    row!(&[Tune], ["A"], "A", key("-spsa"), Tuning, None, ["10"], "stability constant, A >= 0 (default a tenth of the iterations)"),
    row!(&[Tune], ["-tuneout"], "key=value...", SETTINGS, Tuning, None, ["every=5"],
        "where and how often θ is shown and written (below)"),
    row!(&[Tune], ["every"], "N", key("-tuneout"), Tuning, None, ["5"], "show and write θ every N iterations (default a tenth of the run)"),
    row!(&[Tune], ["csv"], "FILE", key("-tuneout"), Tuning, None, ["t.csv"], "θ as CSV (default beside the journal: X.tune.csv)"),
    row!(&[Tune], ["params"], "FILE", key("-tuneout"), Tuning, None, ["t.txt"], "θ in the params file's format (default X.tuned.txt)"),
    row!(&[Tune], ["info"], "FILE", key("-tuneout"), Tuning, None, ["t.info"], "θ as INFO lines (default X.tuned.info)"),
    row!(&[Tune], ["-srand"], "S", VALUE, Tuning, None, ["7"],
        "seed of the flips and roundings (default the openings' srand=, else drawn and printed): the same seed, the same trajectory"),
    // ---- games
    row!(SHARD_USERS, ["-concurrency"], "N", VALUE, Games, Some(Opt::Concurrency), ["2"], "games at once (default 1)"),
    row!(RUN, ["-games"], "N", VALUE, Games, Some(Opt::Games), ["4"], "games per pair per round (default 1)"),
    row!(RUN, ["-rounds"], "N", VALUE, Games, Some(Opt::Rounds), ["2"], "rounds (default 1)"),
    row!(RUN, ["-gauntlet"], "", FLAG, Games, Some(Opt::Gauntlet), [], "the first engine against each other one (default: round robin); the same as -tournament gauntlet"),
    row!(RUN, ["-tournament"], "F", VALUE, Games, Some(Opt::Tournament), ["swiss"],
        "roundrobin (default), gauntlet, knockout (a seeded bracket; each match -games games, a tie broken by up to two game pairs, then the higher seed), swiss (-rounds rounds paired by score, no rematches) or groups (Gomocup's league: only engines rated within -groups gap= meet; settings below)"),
    row!(RUN, ["-seeds"], "N", VALUE, Games, Some(Opt::Seeds), ["2"],
        "knockout: the first N engines are seeds 1 to N in command-line order; the others are placed by -srand / the openings' srand= (default 0)"),
    row!(RUN, ["-srand"], "S", VALUE, Games, Some(Opt::Srand), ["7"],
        "the run's seed: a knockout's unseeded places, and a random openings order (the same as -openings srand=S; default drawn)"),
    row!(RUN, ["-groups"], "key=value...", SETTINGS, Games, Some(Opt::Groups), ["ratings=last.txt"],
        "-tournament groups' settings (below)"),
    row!(RUN, ["ratings"], "FILE|DIR", key("-groups"), Games, None, ["last.txt"],
        "the ratings, matched to the engines by name: gomoku-cli ratings' table or --json, or a journal or run directory (fitted); an engine not in it meets every engine"),
    row!(RUN, ["gap"], "ELO", key("-groups"), Games, None, ["400"],
        "engines rated this many Elo apart or more do not meet (default 400, Gomocup's)"),
    row!(RUN, ["promote"], "K", key("-groups"), Games, None, ["4"], "the top K are promoted at the end (default 4)"),
    row!(RUN, ["promoted"], "FILE", key("-groups"), Games, None, ["next.json"],
        "write the promoted engines there as an engines file, for the next group's run (-engines FILE -engine conf=NAME)"),
    row!(RUN_TUNE, ["-repeat"], "", FLAG, Games, Some(Opt::Repeat), [], "each opening twice, colours reversed"),
    row!(RUN, ["-noswap"], "", FLAG, Games, Some(Opt::NoSwap), [],
        "every game of a pair in the same colours, the first engine black (with -repeat too)"),
    row!(RUN, ["-reverse"], "", FLAG, Games, Some(Opt::Reverse), [],
        "each game's colours the other way round: the second engine of each pair black first"),
    row!(BOARD_USERS, ["-rule"], "R", VALUE, Games, Some(Opt::Rule), ["4"],
        "0 freestyle, 1 exact five, 4 renju, 8 caro, 9 standard caro (default 0)"),
    row!(BOARD_USERS, ["-boardsize"], "N", VALUE, Games, Some(Opt::BoardSize), ["20"], "5 to 32 (default 15)"),
    row!(RUN_TUNE, ["-sendbyboard"], "", FLAG, Games, Some(Opt::SendByBoard), [],
        "send the whole position with BOARD before every move"),
    row!(STARTUP_USERS, ["-startuptimeout"], "S", VALUE, Games, Some(Opt::StartupTimeout), ["10"],
        "seconds an engine has to answer START (default 10)"),
    row!(RUN_TUNE, ["-fatalerror"], "", FLAG, Games, Some(Opt::FatalError), [],
        "stop the run when an engine crashes, hangs, fails to start or answers a move with ERROR (exit code 4)"),
    row!(RUN_TUNE, ["-suspend"], "", FLAG, Games, Some(Opt::Suspend), [],
        "stop (SIGSTOP) the engine not on move; continue it before its next command"),
    row!(RUN_TUNE, ["-ponder"], "", FLAG, Games, Some(Opt::Ponder), [],
        "engines think on the opponent's time: INFO pondering 1 before each game, never suspended, and every engine in one game at a time (slots=1 for all)"),
    row!(RUN_TUNE, ["-wait"], "MS", VALUE, Games, Some(Opt::Wait), ["300"],
        "milliseconds a game slot waits after a game before starting its next (default 0)"),
    row!(RUN_TUNE, ["-cpus"], "LIST|auto", VALUE, Games, Some(Opt::Cpus), ["0-3"],
        "pin each game slot, engines and all, to its share of LIST (0-7, 0,2,4,6) or, with auto, of the CPUs this process may use"),
    row!(RUN, ["-sprt"], "key=value...", SETTINGS_OR_NONE, Games, Some(Opt::Sprt), ["elo1=5"],
        "stop when the sequential probability ratio test decides (two engines; settings below)"),
    row!(RUN, ["elo0"], "E0", key("-sprt"), Games, None, ["0"], "H0's Elo (default 0)"),
    row!(RUN, ["elo1"], "E1", key("-sprt"), Games, None, ["5"], "H1's Elo (required)"),
    row!(RUN, ["alpha"], "A", key("-sprt"), Games, None, ["0.05"], "false positive rate (default 0.05)"),
    row!(RUN, ["beta"], "B", key("-sprt"), Games, None, ["0.05"], "false negative rate (default 0.05)"),
    row!(RUN, ["model"], "normalized|logistic|gsprt", key("-sprt"), Games, None, ["logistic"],
        "normalized (fishtest's default: normalized Elo), logistic (ordinary Elo) or gsprt (c-gomoku-cli's)"),
    // ---- openings
    row!(RUN_TUNE, ["-openings"], "key=value...", SETTINGS, Openings, Some(Opt::Openings), ["file=o.txt"],
        "opening positions (settings below)"),
    row!(RUN_TUNE, ["file"], "FILE", key("-openings"), Openings, None, ["o.txt"], "the opening file (required)"),
    row!(RUN_TUNE, ["type"], "offset|pos|psq", key("-openings"), Openings, None, ["pos"],
        "its format (default offset); psq: one Piskvork .psq record"),
    row!(RUN_TUNE, ["moves"], "N", key("-openings"), Openings, None, ["4"], "with type=psq, its first N stones (default all)"),
    row!(RUN_TUNE, ["order"], "sequential|random", key("-openings"), Openings, None, ["random"], "the order openings are drawn (default sequential)"),
    row!(RUN_TUNE, ["start"], "N", key("-openings"), Openings, None, ["101"],
        "begin at the N-th opening of the order, after shuffling (default 1)"),
    row!(RUN_TUNE, ["srand"], "N", key("-openings"), Openings, None, ["7"], "seed of a random order (default drawn)"),
    row!(RUN_TUNE, ["-transform"], "", FLAG, Openings, Some(Opt::Transform), [],
        "after each pass through the openings, the next of the 8 symmetries"),
    row!(RUN_TUNE, ["-swap2"], "", FLAG, Openings, Some(Opt::Swap2), [],
        "the engines choose each opening with SWAP2BOARD (the engine scheduled black proposes; with -openings, each opening is its 3 stones)"),
    row!(RUN_TUNE, ["-swap1"], "", FLAG, Openings, Some(Opt::Swap1), [], "as -swap2, but the chooser's answer ends it (no two more stones)"),
    // ---- adjudication
    row!(RUN_TUNE, ["-drawafter"], "N", VALUE, Adjudication, Some(Opt::DrawAfter), ["200"],
        "draw when N stones stand on the board, the opening included (0: off)"),
    row!(RUN_TUNE, ["-draw"], "key=value...|M S", SCORE_SETTINGS, Adjudication, Some(Opt::Draw), ["movecount=8", "score=20"],
        "draw when from move N on both engines' evaluations stay within ±S for M moves of each (settings below; -draw M S is movecount=M score=S)"),
    row!(RUN_TUNE, ["movenumber"], "N", key("-draw"), Adjudication, None, ["40"], "the first move watched (default 0)"),
    row!(RUN_TUNE, ["movecount"], "M", key("-draw"), Adjudication, None, ["8"], "moves of each engine (required)"),
    row!(RUN_TUNE, ["score"], "S", key("-draw"), Adjudication, None, ["20"], "the bound, in the engines' units (required)"),
    row!(RUN_TUNE, ["-resign"], "key=value...|M S", SCORE_SETTINGS, Adjudication, Some(Opt::Resign), ["movecount=3", "score=400"],
        "an engine loses when its evaluation stays at or below -S for M own moves, or it reports a proven loss K times (settings below; -resign M S is movecount=M score=S)"),
    row!(RUN_TUNE, ["movecount"], "M", key("-resign"), Adjudication, None, ["3"], "own moves in a row (with score=)"),
    row!(RUN_TUNE, ["score"], "S", key("-resign"), Adjudication, None, ["400"], "the bound (with movecount=)"),
    row!(RUN_TUNE, ["twosided"], "true|false", key("-resign"), Adjudication, None, ["true"],
        "and the opponent's evaluation at or above +S over the same moves (default false)"),
    row!(RUN_TUNE, ["mate"], "K", key("-resign"), Adjudication, None, ["2"],
        "a proven loss reported on K own moves in a row (-resign mate=K alone is that rule only)"),
    // ---- journal, records, reports
    row!(RUN_TUNE, ["-journal"], "FILE|off", VALUE, Records, Some(Opt::Journal), ["run.jsonl"],
        "header + one JSON line per finished game (default: a timestamped file beside the first record; off: none); a FILE that already holds games is refused"),
    row!(RUN_TUNE, ["-resume"], "", FLAG, Records, Some(Opt::Resume), [],
        "continue the run of the journal (-journal FILE, or the newest matching timestamped one): same settings, finished games skipped"),
    row!(RECORD_USERS, ["-pgn"], "FILE", VALUE, Records, Some(Opt::Pgn), ["g.pgn"], "PGN records of the games"),
    row!(RECORD_USERS, ["-sgf"], "FILE", VALUE, Records, Some(Opt::Sgf), ["g.sgf"], "SGF records of the games"),
    row!(RECORD_USERS, ["-msg"], "FILE", VALUE, Records, Some(Opt::Msg), ["g.txt"], "the engines' MESSAGE lines, game by game"),
    row!(RECORD_USERS, ["-psq"], "DIR", VALUE, Records, Some(Opt::Psq), ["psq"], "one Piskvork .psq record per game: DIR/game-000012.psq"),
    row!(RECORD_USERS, ["-records"], "key=value...", SETTINGS, Records, Some(Opt::Records), ["evals=off"],
        "what the PGN, SGF and messages hold (settings below)"),
    row!(RECORD_USERS, ["evals"], "on|off", key("-records"), Records, None, ["off"],
        "the engines' search reports (evaluation, depth, nodes, time, PV) in the records (default on; the journal keeps them either way)"),
    row!(RECORD_USERS, ["-sample"], "key=value...", SETTINGS_OR_NONE, Records, Some(Opt::Sample), ["freq=0.5"],
        "training samples (settings below; export and merge: give what the run used to get the same bytes)"),
    row!(RECORD_USERS, ["freq"], "F", key("-sample"), Records, None, ["0.5"], "the share of positions sampled (default 1)"),
    row!(RECORD_USERS, ["format"], "csv|bin|bin_lz4|binpack|binpack_lz4", key("-sample"), Records, None, ["bin"], "file format (default csv)"),
    row!(RECORD_USERS, ["file"], "FILE", key("-sample"), Records, None, ["s.csv"], "where (default sample.csv, sample.bin, ... by format)"),
    row!(RECORD_USERS, ["eval"], "on|off", key("-sample"), Records, None, ["on"], "csv: the engine's evaluation as a fourth column (default off)"),
    row!(RECORD_USERS, ["multipv"], "N", key("-sample"), Records, None, ["2"], "ask the engines for N best moves, 1 to 64 (default 1)"),
    row!(RUN_TUNE, ["-renlib"], "FILE", VALUE, Records, Some(Opt::Renlib), ["r.lib"], "merge every finished 15x15 game into a RenLib .lib library"),
    row!(RUN_TUNE, ["-report"], "FILE", VALUE, Records, Some(Opt::Report), ["r.html"],
        "HTML report of the run, rewritten every -ratinginterval games and at the end"),
    row!(RUN_TUNE, ["-ratinginterval"], "N", VALUE, Records, Some(Opt::RatingInterval), ["10"],
        "results block every N games (default 10; 0: at the end only)"),
    row!(RUN_TUNE, ["-log"], "", FLAG, Records, Some(Opt::Log), [], "protocol logs gomoku-cli.<slot>.log in -logdir"),
    row!(RUN_TUNE, ["-debug"], "", FLAG, Records, Some(Opt::Debug), [], "like -log"),
    row!(RUN_TUNE, ["-logdir"], "DIR", VALUE, Records, Some(Opt::LogDir), ["logs"], "where -log writes (default .)"),
    row!(RUN, ["-loseonly"], "", FLAG, Records, Some(Opt::LoseOnly), [],
        "with -gauntlet, write records only of games the first engine loses (the journal keeps every game)"),
    // ---- clusters
    row!(SHARD_USERS, ["-shard"], "K/N", VALUE, Cluster, Some(Opt::Shard), ["1/2"],
        "play shard K of N of the run (default from SLURM_ARRAY_TASK_* or JOB_COMPLETION_INDEX and GOMOKU_CLI_SHARDS)"),
    row!(RUN_TUNE, ["-rundir"], "DIR", VALUE, Cluster, Some(Opt::RunDir), ["run"],
        "the folder of every shard's journal (default: -journal's folder, else .)"),
    row!(RUN_TUNE, ["-syncinterval"], "S", VALUE, Cluster, Some(Opt::SyncInterval), ["2"],
        "seconds between reads of the other shards' progress (default 2)"),
    // ---- console
    row!(RUN_TUNE, ["-quiet"], "", FLAG, Console, Some(Opt::Quiet), [], "no per-game lines (results blocks and the progress bar stay)"),
    row!(RUN_TUNE, ["-noprogress"], "", FLAG, Console, Some(Opt::NoProgress), [], "no progress bar"),
    row!(RUN_TUNE, ["-verbose"], "", FLAG, Console, Some(Opt::Verbose), [],
        "the runner's diagnostics on standard error (or RUST_LOG=gomoku_cli=debug)"),
    // ---- check
    row!(CHECK_USERS, ["-rule"], "R,...", VALUE, Options, None, ["0,4"], "rules to check (default 0); games are played under the first"),
    row!(CHECK_USERS, ["-boardsize"], "N,...", VALUE, Options, None, ["15,20"], "board sizes to check (default 15,20)"),
    row!(CHECK_USERS, ["--json"], "", FLAG, Options, None, [], "one JSON report instead of the table"),
    // ---- openings generate
    row!(&[OpeningsGenerate], ["-count"], "N", VALUE, Options, None, ["10"], "openings to write, 1 to 10000000 (required)"),
    row!(&[OpeningsGenerate], ["-o", "-output"], "FILE", VALUE, Options, None, ["out.txt"],
        "where to write (required); with -shard, tagged with the shard"),
    row!(&[OpeningsGenerate], ["-stones"], "MIN-MAX", VALUE, Options, None, ["3-5"], "stones of a candidate (default 3-5)"),
    row!(&[OpeningsGenerate], ["-area"], "R", VALUE, Options, None, ["3"], "stones within distance R of the centre (default 3)"),
    row!(&[OpeningsGenerate], ["-balance"], "E", VALUE, Options, None, ["100"],
        "keep a candidate whose evaluation (side to move's view) is within ±E (default 100)"),
    row!(&[OpeningsGenerate], ["-format"], "offset|pos", VALUE, Options, None, ["pos"], "the file's format (default offset)"),
    row!(&[OpeningsGenerate], ["-srand"], "S", VALUE, Options, None, ["7"], "seed of the candidates (default 1)"),
    // ---- judge
    row!(&[Judge], ["--rule"], "R", VALUE, Options, None, ["0"],
        "Gomocup rule code: 0 freestyle, 1 exact five, 4 renju, 8 caro, 9 standard caro. Note the default, 4 (renju): the match runner's -rule defaults to 0 (freestyle)"),
    row!(&[Judge], ["--boardsize"], "N", VALUE, Options, None, ["20"], "board size of move-sequence lines (default 15)"),
    row!(&[Judge], ["--to-move"], "black|white", VALUE, Options, None, ["black"],
        "the side to move on board lines (SIZE:ROW/...) whose stone counts do not tell it, or to override them; without it such boards report \"to_move\":null"),
    row!(&[Judge], ["--strict"], "", FLAG, Options, None, [],
        "refuse board lines whose stone counts no alternating game reaches, and a --to-move they contradict"),
    row!(&[Judge], ["FILE"], "", positional(0, None), Arguments, None, ["in.txt"], "files to read (standard input when none)"),
    // ---- sprt
    row!(&[Sprt], ["--ptnml"], "LL,LD,WL+DD,WD,WW", VALUE, Options, None, ["10,20,30,25,15"], "pair counts by half-points of the first engine"),
    row!(&[Sprt], ["--wld"], "W,L,D", VALUE, Options, None, ["120,100,80"], "game counts of the first engine"),
    row!(&[Sprt], ["--elo0"], "E", VALUE, Options, None, ["-5"], "H0's Elo (default: the run's, else 0)"),
    row!(&[Sprt], ["--elo1"], "E", VALUE, Options, None, ["5"], "H1's Elo (default: the run's, else 5)"),
    row!(&[Sprt], ["--alpha"], "A", VALUE, Options, None, ["0.05"], "default: the run's, else 0.05"),
    row!(&[Sprt], ["--beta"], "B", VALUE, Options, None, ["0.05"], "default: the run's, else 0.05"),
    row!(&[Sprt], ["--model"], "normalized|logistic|gsprt", VALUE, Options, None, ["logistic"],
        "normalized (fishtest's default), logistic, or gsprt (c-gomoku-cli's approximation); default: the run's, else normalized"),
    row!(&[Sprt], ["--json"], "", FLAG, Options, None, [], "one JSON object instead of text"),
    row!(&[Sprt], ["JOURNAL"], "", positional(0, None), Arguments, None, ["run.jsonl"],
        "journal files (-journal) or run directories of one run, possibly split over shards"),
    row!(&[Sprt, Export, Merge, Ratings, LibMerge, Report, OpeningsAudit], ["--force"], "", FLAG, Options, None, [],
        "read a journal whose header no longer gives its fingerprint (its settings were edited), with a warning naming it, instead of refusing it"),
    // ---- samples stats
    row!(&[SamplesStats], ["FILE"], "", positional(1, Some(1)), Arguments, None, ["s.csv"], "the sample file"),
    row!(&[SamplesStats], ["--format"], "csv|bin|bin_lz4|binpack|binpack_lz4", VALUE, Options, None, ["csv"],
        "default: from the extension (.csv, .bin, .lz4, .binpack, .binpack.lz4)"),
    // ---- export, merge
    row!(&[Export], ["JOURNAL"], "", positional(1, None), Arguments, None, ["run.jsonl"],
        "journal files or run directories of one run (the shards of one run are merged in game order)"),
    row!(&[Merge], ["RUNDIR|JOURNAL"], "", positional(1, None), Arguments, None, ["run.jsonl"],
        "run directories (every *.journal.jsonl in them) or journal files of one run"),
    row!(&[Merge], ["--json"], "", FLAG, Options, None, [],
        "one JSON object: the fields of `sprt --json` (two engines with -sprt), plus games, scheduled, shards and standings"),
    // ---- ratings
    row!(&[Ratings], ["INPUT"], "", positional(1, None), Arguments, None, ["run.jsonl"],
        "journals, run directories (every *.journal.jsonl in them, a cluster run's shards) and PGN files, mixed: a file is a journal when its first character is '{', a PGN file when it is '['"),
    row!(&[Ratings], ["--advantage"], "E|estimate", VALUE, Options, None, ["0"],
        "the first mover's advantage in Elo, fixed (default: estimated from the games)"),
    row!(&[Ratings], ["--drawelo"], "E|estimate", VALUE, Options, None, ["0.01"],
        "the draw Elo (how likely draws are), fixed (default: estimated from the games)"),
    row!(&[Ratings], ["--prior"], "N", VALUE, Options, None, ["2"],
        "BayesElo's prior: N virtual draws between every two opponents (default 2)"),
    row!(&[Ratings], ["--offset"], "E", VALUE, Options, None, ["1600"],
        "added to every rating (default 0: the players' mean is 0)"),
    row!(&[Ratings], ["--confidence"], "P", VALUE, Options, None, ["0.95"],
        "the level of the error bars, 0.95 or 95% (default 0.95)"),
    row!(&[Ratings], ["--min-games"], "N", VALUE, Options, None, ["20"],
        "list only players with N games or more (the others are still fitted: BayesElo's `ratings N`)"),
    row!(&[Ratings], ["--max-faults"], "SHARE", VALUE, Options, None, ["10%"],
        "leave out of the fit, with all their games, players whose timeouts and crashes exceed SHARE of their games (10% or 0.1), and list them apart"),
    row!(&[Ratings], ["--gomocup"], "", FLAG, Options, None, [],
        "Gomocup's settings: --advantage 0 --drawelo 0.01 --offset 1600 --max-faults 10% --bayeselo-grid (an option given wins)"),
    row!(&[Ratings], ["--bayeselo-grid"], "", FLAG, Options, None, [],
        "error bars on BayesElo's fixed grid (±1500 Elo around the mean), cut short, even negative, for a rating near or past its edge, as BayesElo prints them (default: the grid goes on as far as a player's likelihood reaches; the same bars inside it)"),
    row!(&[Ratings], ["--los"], "", FLAG, Options, None, [],
        "also the likelihood of superiority of every player over every other, as BayesElo's `los`"),
    row!(&[Ratings], ["--json"], "", FLAG, Options, None, [],
        "one JSON object: advantage, drawelo, games, unfinished, players [{rank, name, elo, minus, plus, games, score, draws, opponent}], left_out [{name, games, faults, share}], and los with --los"),
    // ---- lib
    row!(&[LibStats], ["FILE"], "", positional(1, Some(1)), Arguments, None, ["b.lib"], "the library file"),
    row!(&[LibStats], ["--json"], "", FLAG, Options, None, [], "one JSON object instead of text"),
    row!(&[LibDump], ["FILE"], "", positional(1, Some(1)), Arguments, None, ["b.lib"], "the library file"),
    row!(&[LibDump], ["--paths"], "", FLAG, Options, None, [], "one line per path from the top to a leaf, points only"),
    row!(&[LibDump], ["--notation"], "renju|pos", VALUE, Options, None, ["pos"],
        "renju (row 1 at the bottom, as RenLib shows; default) or pos (row 1 at the top, as journals)"),
    row!(&[LibDump, LibMerge], ["--encoding"], "E", VALUE, Options, None, ["gbk"],
        "code page of the comments and board texts (gbk, big5, shift_jis, utf-8, ...; default windows-1252)"),
    row!(&[LibMerge], ["-o", "--output"], "OUT.lib", VALUE, Options, None, ["out.lib"],
        "the library to write (required; replaced atomically; it may be the --into file)"),
    row!(&[LibMerge], ["--into"], "EXISTING.lib", VALUE, Options, None, ["b.lib"], "start from this library instead of an empty one"),
    row!(&[LibMerge], ["--stats"], "", FLAG, Options, None, [],
        "give every node a line with the games through it and their results from black's side (kept up to date on later merges)"),
    row!(&[LibMerge], ["INPUTS"], "", positional(1, None), Arguments, None, ["run.jsonl"],
        "journals (.jsonl), SGF files, .psq records, pos-notation game lists, .lib files"),
    // ---- report
    row!(&[Report], ["RUNDIR|JOURNAL"], "", positional(1, None), Arguments, None, ["run.jsonl"],
        "journal files (-journal) or run directories of one run (its shards' journals)"),
    row!(&[Report], ["-o", "--output"], "FILE", VALUE, Options, None, ["r.html"],
        "the HTML file to write (default report.html; replaced atomically)"),
    // ---- openings canonical, audit
    row!(&[OpeningsCanonical], ["FILE [type=T]"], "", positional(1, Some(2)), Arguments, None, ["o.txt"],
        "the opening file, then type=offset|pos as -openings reads it (default offset)"),
    row!(&[OpeningsCanonical], ["-o", "--output"], "OUT", VALUE, Options, None, ["c.txt"],
        "where to write (replaced atomically; default standard output)"),
    row!(&[OpeningsCanonical], ["--boardsize"], "N", VALUE, Options, None, ["20"], "board size the openings are for (default 15)"),
    row!(&[OpeningsCanonical], ["--rule"], "R", VALUE, Options, None, ["4"], "rule the openings are checked under (default 0)"),
    row!(&[OpeningsCanonical], ["--counts"], "FILE", VALUE, Options, None, ["n.tsv"],
        "also write each unique opening's count: COUNT<TAB>LINE<TAB>OPENING, one a line"),
    row!(&[OpeningsAudit], ["RUNDIR|JOURNAL"], "", positional(1, None), Arguments, None, ["run.jsonl"],
        "journal files (-journal) or run directories (a cluster run's shards)"),
    row!(&[OpeningsAudit], ["--json"], "", FLAG, Options, None, [], "one JSON object instead of the text table"),
    // ---- named engines and runs from a file (issue 35)
    row!(ENGINE_USERS, ["conf"], "NAME", key("-engine"), Engine, None, ["rapfi"],
        "the engine NAME of the engines file (-engines): its settings, under -each and this -engine's other keys (which win)"),
    row!(ENGINES_FILE_USERS, ["-engines"], "FILE", VALUE, Engine, Some(Opt::EnginesFile), ["e.json"],
        "the engines file conf= reads (default $GOMOKU_CLI_ENGINES, else $XDG_CONFIG_HOME/gomoku-cli/engines.json, else ~/.config/gomoku-cli/engines.json)"),
    row!(ENGINE_USERS, ["-config"], "FILE|save FILE", VALUE, Engine, Some(Opt::Config), ["run.conf"],
        "options from FILE, one a line as on the command line (# comments); the command line's win. -config save FILE (the match runner, tune) writes this run's options to FILE, conf= written out, and exits"),
    row!(&[EnginesList], ["--json"], "", FLAG, Options, None, [], "a JSON array of {name, settings} instead of the text"),
    row!(&[EnginesAdd], ["NAME key=value"], "", positional(1, None), Arguments, None, ["rapfi"],
        "the engine's name, then its settings as -engine takes them (cmd= required; option.K=V)"),
    row!(&[EnginesAdd], ["--force"], "", FLAG, Options, None, [], "replace an engine of that name"),
    row!(&[EnginesCheck], ["NAME"], "", positional(1, Some(1)), Arguments, None, ["rapfi"], "the engine to check"),
];

/// The rows of `command`: its options, their keys and its positionals, in table order.
pub fn rows_of(command: Command) -> impl Iterator<Item = &'static Row> {
    ROWS.iter().filter(move |r| r.commands.contains(&command))
}

/// The option of `command` spelled `word` (dashes stripped).
pub fn option_of(command: Command, word: &str) -> Option<&'static Row> {
    rows_of(command).find(|r| r.is_option() && r.is_spelled(word))
}

/// The keys of the option `parent` of `command`, as `a, b, c` (`option.K` for engines).
pub fn keys_of(command: Command, parent: &str) -> String {
    rows_of(command)
        .filter(|r| matches!(r.takes, Takes::Key { parent: p } if p == parent))
        .map(Row::name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The row of the runner's option `opt`.
pub fn row_of_opt(opt: Opt) -> &'static Row {
    ROWS.iter()
        .find(|r| r.opt == Some(opt))
        .expect("every Opt has a row (tested)")
}

/// The exit codes of every command, for the help, the man page and the reference.
pub const EXIT_CODES: &[(u8, &str)] = &[
    (0, "done (a match: all games played, or the SPRT accepted H1)"),
    (1, "an error in the input (option values, files, lines) or an output path that cannot be used; check: an item failed; openings generate: fewer openings than -count; a Swiss whose next round cannot be paired without a rematch (it ends after the round before)"),
    (2, "command-line usage error (unknown option, missing value)"),
    (3, "the SPRT accepted H0"),
    (4, "stopped by -fatalerror after an engine failure"),
    (5, "stopped because a write to the journal, a record, the samples or a tuning's -tuneout file failed (full disk): what was written is intact; -resume completes the run"),
    (130, "interrupted by Ctrl-C, SIGINT or SIGTERM (continue with -resume); check, tune and openings generate print what they did so far"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::parse::{parse, Given};

    /// The words that satisfy `command`'s required positionals.
    fn required(command: Command) -> Vec<String> {
        rows_of(command)
            .filter_map(|r| match r.takes {
                Takes::Positional { min, .. } => Some(vec![r.example[0].to_string(); min]),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// A key as written on a command line (`option.K` as `option.hash`).
    fn key_word(row: &Row) -> String {
        format!("{}={}", row.name().replace(".K", ".hash"), row.example[0])
    }

    /// How `row` is written with its example, and the row it fills.
    fn written(command: Command, row: &'static Row) -> (Vec<String>, &'static Row) {
        match row.takes {
            Takes::Key { parent } => {
                let p = option_of(command, parent.trim_start_matches('-')).unwrap();
                (vec![parent.to_string(), key_word(row)], p)
            }
            Takes::Positional { .. } => (vec![row.example[0].to_string()], row),
            _ => {
                let mut w = vec![row.name().to_string()];
                w.extend(row.example.iter().map(|e| e.to_string()));
                (w, row)
            }
        }
    }

    #[test]
    fn every_row_parses_in_each_of_its_commands() {
        for row in ROWS {
            assert!(!row.help.is_empty() && !row.names.is_empty());
            for &c in row.commands {
                let (mut args, filled) = written(c, row);
                if row.is_option() || matches!(row.takes, Takes::Key { .. }) {
                    args.extend(required(c));
                }
                let p = parse(c, &args).unwrap_or_else(|e| panic!("{c:?} {args:?}: {e}"));
                assert!(
                    p.items.iter().any(|(r, _)| std::ptr::eq(*r, filled)),
                    "{c:?} {args:?}"
                );
                // Every other spelling, with one dash or two, is the same row.
                for name in row.names.iter().filter(|_| row.is_option()) {
                    for dashes in ["-", "--"] {
                        let spelled = format!("{dashes}{}", name.trim_start_matches('-'));
                        assert!(std::ptr::eq(
                            option_of(c, &spelled[dashes.len()..]).unwrap(),
                            row
                        ));
                    }
                }
                if let Takes::Key { .. } = row.takes {
                    let kvs = p.items.iter().find_map(|(_, g)| match g {
                        Given::Settings(kvs) => Some(kvs.clone()),
                        _ => None,
                    });
                    assert_eq!(kvs.unwrap()[0].0, row.name().replace(".K", ".hash"));
                }
            }
        }
    }

    #[test]
    fn no_command_has_two_options_of_one_spelling_or_a_key_without_its_option() {
        for c in Command::ALL {
            let rows: Vec<&Row> = rows_of(c).collect();
            for (i, a) in rows.iter().enumerate() {
                for b in &rows[i + 1..] {
                    let same = a
                        .names
                        .iter()
                        .any(|n| b.is_spelled(n.trim_start_matches('-')));
                    // Options among options, keys among the keys of one option.
                    let clash = match (a.takes, b.takes) {
                        (Takes::Key { parent: p }, Takes::Key { parent: q }) => p == q,
                        _ => a.is_option() && b.is_option(),
                    };
                    assert!(!(same && clash), "{c:?}: {} twice", a.name());
                }
                if let Takes::Key { parent } = a.takes {
                    assert!(
                        option_of(c, parent.trim_start_matches('-')).is_some(),
                        "{c:?}: {parent}"
                    );
                }
            }
            let positionals = rows
                .iter()
                .filter(|r| matches!(r.takes, Takes::Positional { .. }));
            assert!(positionals.count() <= 1, "{c:?}");
        }
    }

    #[test]
    fn every_runner_option_has_one_row_and_it_is_the_runners() {
        for &opt in Opt::ALL {
            let rows: Vec<&Row> = ROWS.iter().filter(|r| r.opt == Some(opt)).collect();
            assert_eq!(rows.len(), 1, "{opt:?}");
            assert!(rows[0].commands.contains(&Command::Run), "{opt:?}");
        }
        for row in ROWS
            .iter()
            .filter(|r| r.commands.contains(&Command::Run) && r.is_option())
        {
            assert!(row.opt.is_some(), "{} fills nothing in RawCli", row.name());
        }
    }

    #[test]
    fn every_runner_key_is_one_config_takes() {
        // The key rows of the options `config` reads the keys of; -openings needs its file.
        for row in rows_of(Command::Run) {
            let Takes::Key { parent } = row.takes else {
                continue;
            };
            // A setting the option needs, unless it is the row's own key (no key twice).
            let required = |kv: &'static str| match kv.split_once('=') {
                Some((k, _)) if k == row.name() => "",
                _ => kv,
            };
            // conf= needs an engines file: `config::named` and tests/it/e2e_named.rs.
            if row.name() == "conf" {
                continue;
            }
            let line = match parent {
                "-engine" => format!(
                    "-engine cmd=/bin/sh -engine cmd=/bin/sh -each {}",
                    key_word(row)
                ),
                "-sprt" => format!(
                    "-engine cmd=/bin/sh -engine cmd=/bin/sh -sprt {} {}",
                    required("elo1=5"),
                    key_word(row)
                ),
                "-draw" | "-resign" => format!(
                    "-engine cmd=/bin/sh -engine cmd=/bin/sh {parent} {} {} {}",
                    required("movecount=3"),
                    required("score=10"),
                    key_word(row)
                ),
                "-records" => format!(
                    "-engine cmd=/bin/sh -engine cmd=/bin/sh -records {}",
                    key_word(row)
                ),
                "-sample" => format!(
                    "-engine cmd=/bin/sh -engine cmd=/bin/sh -journal off -sample {}",
                    key_word(row)
                ),
                "-openings" => continue,
                // ratings= names a file: the league's own tests give one.
                "-groups" if row.name() == "ratings" => continue,
                "-groups" => format!(
                    "-engine cmd=/bin/sh name=a -engine cmd=/bin/sh name=b -engine cmd=/bin/sh name=c \
                     -engine cmd=/bin/sh name=d -tournament groups -groups {}",
                    key_word(row)
                ),
                other => panic!("a key of {other}: add it to this test"),
            };
            let line = line.replace("format=bin", "format=bin file=x.bin");
            crate::config::config_in(&line, &[]).unwrap_or_else(|e| panic!("{line}: {e}"));
        }
        let e =
            crate::config::config_in("-engine cmd=/bin/sh -engine cmd=/bin/sh -each bogus=1", &[]);
        let e = e.unwrap_err().to_string();
        assert!(e.contains(&keys_of(Command::Run, "-engine")), "{e}");
    }
}
