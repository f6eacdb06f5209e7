use std::path::Path;

use clap::{Args, FromArgMatches};

use super::*;

/// One key exercised from each source: a good value as the file writes it, as its
/// environment variable writes it and as its flags write it, what `candor config` then
/// shows, and a bad value for the file and (where text can be bad) for the environment.
struct Case {
    key: &'static str,
    file: &'static str,
    text: &'static str,
    flags: &'static [&'static str],
    shown: &'static str,
    bad_file: &'static str,
    bad_text: Option<&'static str>,
}

const CASES: &[Case] = &[
    Case {
        key: "chromium",
        file: "\"/opt/chromium\"",
        text: "/opt/chromium",
        flags: &["/opt/chromium"],
        shown: "\"/opt/chromium\"",
        bad_file: "7",
        bad_text: None,
    },
    Case {
        key: "headless",
        file: "false",
        text: "no",
        flags: &["false"],
        shown: "false",
        bad_file: "\"no\"",
        bad_text: Some("nope"),
    },
    Case {
        key: "browserArgs",
        file: "[\"--lang=fr\", \"--mute-audio\"]",
        text: "--lang=fr  --mute-audio",
        flags: &["--lang=fr", "--mute-audio"],
        shown: "[\"--lang=fr\", \"--mute-audio\"]",
        bad_file: "\"--lang=fr\"",
        bad_text: Some("lang=fr"),
    },
    Case {
        key: "cdpEndpoints",
        file: "[\"ws://10.0.0.1:9222\", \"http://10.0.0.2:9222\"]",
        text: "ws://10.0.0.1:9222, http://10.0.0.2:9222",
        flags: &["ws://10.0.0.1:9222", "http://10.0.0.2:9222"],
        shown: "[\"ws://10.0.0.1:9222\", \"http://10.0.0.2:9222\"]",
        bad_file: "[\"ftp://10.0.0.1\"]",
        bad_text: Some("10.0.0.1:9222"),
    },
    Case {
        key: "grid",
        file: "\"http://grid:4444\"",
        text: "http://grid:4444",
        flags: &["http://grid:4444"],
        shown: "\"http://grid:4444\"",
        bad_file: "\"ws://grid:4444\"",
        bad_text: Some("grid:4444"),
    },
    Case {
        key: "commandTimeoutMs",
        file: "5000",
        text: "5000",
        flags: &["5000"],
        shown: "5000",
        bad_file: "0",
        bad_text: Some("5s"),
    },
    Case {
        key: "unresponsiveMs",
        file: "1500",
        text: "1500",
        flags: &["1500"],
        shown: "1500",
        bad_file: "50",
        bad_text: Some("99999999"),
    },
    Case {
        key: "settleMs",
        file: "0",
        text: "0",
        flags: &["0"],
        shown: "0",
        bad_file: "60001",
        bad_text: Some("-1"),
    },
    Case {
        key: "snapshotMaxTokens",
        file: "8000",
        text: "8000",
        flags: &["8000"],
        shown: "8000",
        bad_file: "99",
        bad_text: Some("lots"),
    },
    Case {
        key: "readMaxChars",
        file: "50000",
        text: "50000",
        flags: &["50000"],
        shown: "50000",
        bad_file: "0",
        bad_text: Some("3000000"),
    },
    Case {
        key: "screenshotMaxWidth",
        file: "800",
        text: "800",
        flags: &["800"],
        shown: "800",
        bad_file: "10",
        bad_text: Some("8000"),
    },
    Case {
        key: "pressPauseMs",
        file: "\"10,20\"",
        text: "10,20",
        flags: &["10,20"],
        shown: "\"10,20\"",
        bad_file: "\"80,30\"",
        bad_text: Some("slow"),
    },
    Case {
        key: "downloadMaxCount",
        file: "3",
        text: "3",
        flags: &["3"],
        shown: "3",
        bad_file: "-1",
        bad_text: Some("200000"),
    },
    Case {
        key: "downloadMaxMb",
        file: "20",
        text: "20",
        flags: &["20"],
        shown: "20",
        bad_file: "\"big\"",
        bad_text: Some("2000000"),
    },
    Case {
        key: "logMaxEntries",
        file: "50",
        text: "50",
        flags: &["50"],
        shown: "50",
        bad_file: "5",
        bad_text: Some("many"),
    },
    Case {
        key: "enableEval",
        file: "true",
        text: "yes",
        flags: &["true"],
        shown: "true",
        bad_file: "1",
        bad_text: Some("ture"),
    },
    Case {
        key: "allowData",
        file: "true",
        text: "on",
        flags: &["true"],
        shown: "true",
        bad_file: "\"yes\"",
        bad_text: Some("maybe"),
    },
    Case {
        key: "allowOrigins",
        file: "[\"*.example.com\", \"127.0.0.1:8080\"]",
        text: "*.example.com,127.0.0.1:8080",
        flags: &["*.example.com", "127.0.0.1:8080"],
        shown: "[\"*.example.com\", \"127.0.0.1:8080\"]",
        bad_file: "[\"ftp://example.com\"]",
        bad_text: Some("https://example.com/path"),
    },
    Case {
        key: "blockOrigins",
        file: "[\"https://ads.example.com\"]",
        text: "https://ads.example.com",
        flags: &["https://ads.example.com"],
        shown: "[\"https://ads.example.com\"]",
        bad_file: "[1]",
        bad_text: Some("file:///etc"),
    },
    Case {
        key: "defaultViewport",
        file: "\"phone\"",
        text: "Phone",
        flags: &["phone"],
        shown: "\"phone\"",
        bad_file: "\"watch\"",
        bad_text: Some("custom"),
    },
    Case {
        key: "dialogPolicy",
        file: "\"ask\"",
        text: "ASK",
        flags: &["ask"],
        shown: "\"ask\"",
        bad_file: "\"sometimes\"",
        bad_text: Some("sometimes"),
    },
    Case {
        key: "uploadDir",
        file: "\"/srv/up\"",
        text: "/srv/up",
        flags: &["/srv/up"],
        shown: "\"/srv/up\"",
        bad_file: "true",
        bad_text: None,
    },
    Case {
        key: "archiveDir",
        file: "\"/srv/archive\"",
        text: "/srv/archive",
        flags: &["/srv/archive"],
        shown: "\"/srv/archive\"",
        bad_file: "[]",
        bad_text: None,
    },
    Case {
        key: "keepArchive",
        file: "true",
        text: "1",
        flags: &["true"],
        shown: "true",
        bad_file: "\"true\"",
        bad_text: Some("ok"),
    },
    Case {
        key: "redactKeys",
        file: "[\"x-tenant\", \"ssn\"]",
        text: "x-tenant,ssn",
        flags: &["x-tenant", "ssn"],
        shown: "[\"x-tenant\", \"ssn\"]",
        bad_file: "[\"a b\"]",
        bad_text: Some("ab"),
    },
    Case {
        key: "profile",
        file: "\"/srv/profiles/shop\"",
        text: "/srv/profiles/shop",
        flags: &["/srv/profiles/shop"],
        shown: "\"/srv/profiles/shop\"",
        bad_file: "7",
        bad_text: None,
    },
    Case {
        key: "proxy",
        file: "\"http://10.0.0.5:3128\"",
        text: "http://10.0.0.5:3128",
        flags: &["http://10.0.0.5:3128"],
        shown: "\"http://10.0.0.5:3128\"",
        bad_file: "\"ftp://10.0.0.5:21\"",
        bad_text: Some("ftp://10.0.0.5:21"),
    },
    Case {
        key: "proxyBypass",
        file: "\"<-loopback>;*.internal\"",
        text: "<-loopback>;*.internal",
        flags: &["<-loopback>;*.internal"],
        shown: "\"<-loopback>;*.internal\"",
        bad_file: "[]",
        bad_text: None,
    },
    Case {
        key: "proxyUsername",
        file: "\"ann\"",
        text: "ann",
        flags: &["ann"],
        shown: "\"ann\"",
        bad_file: "1",
        bad_text: None,
    },
    // A secret: read from the file and the environment, shown redacted, and no flag.
    Case {
        key: "proxyPassword",
        file: "\"hunter2\"",
        text: "hunter2",
        flags: &[],
        shown: "\"[redacted]\"",
        bad_file: "1",
        bad_text: None,
    },
    Case {
        key: "stateKey",
        file: "\"correct horse\"",
        text: "correct horse",
        flags: &[],
        shown: "\"[redacted]\"",
        bad_file: "7",
        bad_text: None,
    },
];

const FILE: &str = "/etc/candor/candor.toml";

fn key(name: &str) -> &'static Key {
    KEYS.iter()
        .find(|key| key.name == name)
        .unwrap_or_else(|| panic!("no key {name}"))
}

fn flags(args: &[String]) -> Result<Flags, clap::Error> {
    let command = Flags::augment_args(clap::Command::new("candor"));
    let matches = command
        .try_get_matches_from(std::iter::once("candor".to_string()).chain(args.iter().cloned()))?;
    Flags::from_arg_matches(&matches)
}

fn from_file(text: &str) -> anyhow::Result<Config> {
    let mut config = Config::default();
    config.apply_file(Path::new(FILE), text)?;
    Ok(config)
}

fn from_env(name: &'static str, text: &str) -> anyhow::Result<Config> {
    let mut config = Config::default();
    config.apply_env(|var| (var == name).then(|| text.to_string()))?;
    Ok(config)
}

fn from_flags(args: &[String]) -> anyhow::Result<Config> {
    let mut config = Config::default();
    config.apply_flags(&flags(args)?)?;
    Ok(config)
}

fn check(case: &Case) {
    let key = key(case.key);
    let shown = |config: &Config| {
        config
            .shown(key.name)
            .map(|(value, source)| (value, source.clone()))
    };
    let config = from_file(&format!("{} = {}", key.name, case.file)).unwrap();
    assert_eq!(
        shown(&config),
        Some((case.shown.to_string(), Source::File(FILE.into()))),
        "{} from the file",
        key.name
    );
    let config = from_env(key.env, case.text).unwrap();
    assert_eq!(
        shown(&config),
        Some((case.shown.to_string(), Source::Env(key.env))),
        "{} from {}",
        key.name,
        key.env
    );
    let args: Vec<String> = case
        .flags
        .iter()
        .map(|value| format!("--{}={value}", key.flag))
        .collect();
    if key.flag.is_empty() {
        assert!(case.flags.is_empty(), "{} has no flag", key.name);
    } else {
        let config = from_flags(&args).unwrap();
        assert_eq!(
            shown(&config),
            Some((case.shown.to_string(), Source::Flag(key.flag))),
            "{} from --{}",
            key.name,
            key.flag
        );
    }
    assert_ne!(
        key.default_shown(),
        case.shown,
        "{}: the case must differ from the default to show it took",
        key.name
    );

    let err = from_file(&format!("{} = {}", key.name, case.bad_file))
        .unwrap_err()
        .to_string();
    for part in [key.name, case.bad_file, FILE] {
        assert!(err.contains(part), "{}: {err:?} lacks {part:?}", key.name);
    }
    if let Some(bad) = case.bad_text {
        let err = from_env(key.env, bad).unwrap_err().to_string();
        for part in [key.name, bad, key.env] {
            assert!(err.contains(part), "{}: {err:?} lacks {part:?}", key.name);
        }
        let err = from_flags(&[format!("--{}={bad}", key.flag)])
            .unwrap_err()
            .to_string();
        let flag = format!("--{}", key.flag);
        for part in [key.name, bad, flag.as_str()] {
            assert!(err.contains(part), "{}: {err:?} lacks {part:?}", key.name);
        }
    }
}

#[test]
fn every_key_is_read_from_the_file_the_environment_and_its_flag_and_bad_values_are_named() {
    for case in CASES {
        check(case);
    }
    let tested: Vec<&str> = CASES.iter().map(|case| case.key).collect();
    let declared: Vec<&str> = KEYS.iter().map(|key| key.name).collect();
    assert_eq!(tested, declared, "one case per key, in the table's order");
}

#[test]
fn every_key_follows_the_naming_rule_of_its_variable_and_flag() {
    for key in KEYS {
        let mut snake = String::new();
        for c in key.name.chars() {
            if c.is_ascii_uppercase() {
                snake.push('_');
            }
            snake.push(c.to_ascii_uppercase());
        }
        assert_eq!(key.env, format!("CANDOR_{snake}"), "{}", key.name);
        let kebab = snake.to_ascii_lowercase().replace('_', "-");
        // A list's flag is repeated, one item each: its name is the singular.
        let singular = kebab.strip_suffix('s').unwrap_or(&kebab);
        // A secret has no flag: arguments are visible to other users.
        let secret = key.takes.contains("secret");
        assert!(
            key.flag == kebab || key.flag == singular || (secret && key.flag.is_empty()),
            "{}: --{}",
            key.name,
            key.flag
        );
        assert_eq!(secret, key.flag.is_empty(), "{}", key.name);
        assert!(!key.summary().is_empty());
    }
}

#[test]
fn a_flag_beats_the_environment_which_beats_the_file() {
    let mut config =
        from_file("commandTimeoutMs = 1000\nunresponsiveMs = 1000\nenableEval = true").unwrap();
    config
        .apply_env(|var| {
            matches!(var, "CANDOR_COMMAND_TIMEOUT_MS" | "CANDOR_UNRESPONSIVE_MS")
                .then(|| "2000".to_string())
        })
        .unwrap();
    config
        .apply_flags(&flags(&["--command-timeout-ms".into(), "3000".into()]).unwrap())
        .unwrap();
    assert_eq!(config.command_timeout_ms, 3000);
    assert_eq!(
        config.sources.command_timeout_ms,
        Source::Flag("command-timeout-ms")
    );
    assert_eq!(config.unresponsive_ms, 2000);
    assert_eq!(
        config.sources.unresponsive_ms,
        Source::Env("CANDOR_UNRESPONSIVE_MS")
    );
    assert!(config.enable_eval);
    assert_eq!(config.sources.enable_eval, Source::File(FILE.into()));
    assert_eq!(config.settle_ms, 1000);
    assert_eq!(config.sources.settle_ms, Source::Default);
}

#[test]
fn an_unknown_key_names_itself_and_the_file_and_suggests_the_near_one() {
    let err = from_file("enableEvil = true").unwrap_err().to_string();
    assert!(err.contains("\"enableEvil\""), "{err}");
    assert!(err.contains(FILE), "{err}");
    assert!(err.contains("did you mean enableEval?"), "{err}");
    let err = from_file("[browser]\nheadless = false")
        .unwrap_err()
        .to_string();
    assert!(err.contains("\"browser\"") && err.contains(FILE), "{err}");
    let err = from_file("headless = ").unwrap_err().to_string();
    assert!(
        err.contains("not valid TOML") && err.contains(FILE),
        "{err}"
    );
}

#[test]
fn a_switch_stands_alone_and_headed_is_headless_false() {
    let config = from_flags(&["--enable-eval".into(), "--headed".into()]).unwrap();
    assert!(config.enable_eval);
    assert!(!config.headless);
    assert_eq!(config.sources.headless, Source::Flag("headed"));
    let given = flags(&[
        "--headed".into(),
        "--allow-origin".into(),
        "a.example".into(),
        "--allow-origin=b.example".into(),
    ])
    .unwrap();
    assert_eq!(
        given.to_args(),
        [
            "--headed",
            "--allow-origin=a.example",
            "--allow-origin=b.example"
        ]
    );
    let again: Vec<String> = given
        .to_args()
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        format!("{:?}", flags(&again).unwrap()),
        format!("{given:?}")
    );
}

#[test]
fn a_grid_and_a_pool_together_are_refused_naming_both_sources() {
    let mut config = from_file("grid = \"http://127.0.0.1:4444\"").unwrap();
    config
        .apply_env(|var| (var == "CANDOR_CDP_ENDPOINTS").then(|| "http://127.0.0.1:9222".into()))
        .unwrap();
    let refused = config.check_placement().unwrap_err().to_string();
    assert!(refused.contains("grid (file "), "{refused}");
    assert!(
        refused.contains("cdpEndpoints (env CANDOR_CDP_ENDPOINTS)"),
        "{refused}"
    );
    assert!(
        from_file("grid = \"http://127.0.0.1:4444\"")
            .unwrap()
            .check_placement()
            .is_ok()
    );
}

#[test]
fn an_empty_variable_is_unset() {
    let config = from_env("CANDOR_ENABLE_EVAL", " ").unwrap();
    assert_eq!(config.sources.enable_eval, Source::Default);
}

/// The README's table of keys, made from [`KEYS`].
fn readme_table() -> String {
    let mut table = String::from(
        "| key | environment | flag | takes | default | what it does |\n|---|---|---|---|---|---|\n",
    );
    for key in KEYS {
        let flag = if key.flag.is_empty() {
            "none (a secret)".to_string()
        } else {
            format!("`--{}`", key.flag)
        };
        table.push_str(&format!(
            "| `{}` | `{}` | {} | {} | `{}` | {} |\n",
            key.name,
            key.env,
            flag,
            key.takes(),
            key.default_shown(),
            key.summary().replace('|', "\\|")
        ));
    }
    table
}

/// The README holds the table between its markers; `CANDOR_WRITE_CONFIG_TABLE=1`
/// writes it there.
#[test]
fn the_readme_table_of_keys_is_the_table_in_the_code() {
    const START: &str = "<!-- config keys: made from crates/cli/src/config.rs -->\n";
    const END: &str = "<!-- end of config keys -->";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (before, rest) = readme.split_once(START).expect("the README's start marker");
    let (current, after) = rest.split_once(END).expect("the README's end marker");
    let table = readme_table();
    if std::env::var_os("CANDOR_WRITE_CONFIG_TABLE").is_some() {
        std::fs::write(&path, format!("{before}{START}{table}{END}{after}")).unwrap();
        return;
    }
    assert_eq!(
        current, table,
        "the README's config table is stale: run CANDOR_WRITE_CONFIG_TABLE=1 cargo test -p cli --bin candor readme"
    );
}

/// A tool description cites a default by its configuration key (`{snapshotMaxTokens}`):
/// each such key is one of the configuration's, with the same built-in default.
#[test]
fn the_defaults_tool_descriptions_cite_are_configuration_keys() {
    for (name, value) in tools::defaults::CallDefaults::default().by_key() {
        let key = KEYS
            .iter()
            .find(|key| key.name == name)
            .unwrap_or_else(|| panic!("{name} is no configuration key"));
        assert_eq!(key.default_shown(), value.to_string(), "{name}");
    }
}

#[test]
fn a_proxy_password_is_never_shown_and_needs_its_user_name_and_proxy() {
    let config = from_file(
        "proxy = \"http://10.0.0.5:3128\"\nproxyUsername = \"ann\"\nproxyPassword = \"hunter2\"",
    )
    .unwrap();
    assert!(!config.report().contains("hunter2"), "{}", config.report());
    assert!(!config.report_json().to_string().contains("hunter2"));
    assert!(!format!("{config:?}").contains("hunter2"));
    let proxy = config.proxy_setting().unwrap();
    assert_eq!(
        proxy.credentials.map(|c| (c.username, c.password)),
        Some(("ann".into(), "hunter2".into()))
    );
    config.check_placement().unwrap();
    let alone = from_file("proxyPassword = \"hunter2\"").unwrap();
    let refused = alone.check_placement().unwrap_err().to_string();
    assert!(refused.contains("proxyUsername"), "{refused}");
    assert!(!refused.contains("hunter2"), "{refused}");
    let no_proxy = from_file("proxyUsername = \"ann\"").unwrap();
    assert!(no_proxy.check_placement().is_err());
    // There is no flag to put it on a command line.
    assert!(flags(&["--proxy-password=hunter2".into()]).is_err());
}
