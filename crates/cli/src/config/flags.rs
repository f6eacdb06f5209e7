//! The configuration's flags: one global flag per key of [`KEYS`] (and `--headed`), made
//! for clap from the table, read back as the flags given, and spelled again for a daemon
//! this process starts.

use std::ffi::OsString;

use clap::{Arg, ArgAction, ArgMatches};

use super::{KEYS, Key};

/// The `--headed` shorthand: `--headless=false`.
const HEADED: &str = "headed";

/// The configuration flags given on the command line, one per key (`--enable-eval`,
/// `--allow-origin URL`…), global to every subcommand; made from [`KEYS`].
#[derive(Debug, Clone, Default)]
pub struct Flags {
    pub(super) given: Vec<Given>,
}

#[derive(Debug, Clone)]
pub(super) struct Given {
    pub(super) key: &'static Key,
    /// As spelled, without its dashes.
    pub(super) flag: &'static str,
    pub(super) values: Vec<String>,
}

impl Flags {
    /// These flags as arguments again (`--name=value`), for a daemon this process starts.
    /// All but `--profile`: a profile is one task's, and a daemon given it would start
    /// every task on it (each after the first refused); the verb's start names it instead.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args = Vec::new();
        for given in self
            .given
            .iter()
            .filter(|given| given.key.name != "profile")
        {
            if given.flag == HEADED {
                args.push(format!("--{HEADED}").into());
                continue;
            }
            for value in &given.values {
                args.push(format!("--{}={value}", given.flag).into());
            }
        }
        args
    }
}

impl clap::FromArgMatches for Flags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for key in KEYS.iter().filter(|key| !key.flag.is_empty()) {
            if key.name == "headless" && matches.get_flag(HEADED) {
                given.push(Given {
                    key,
                    flag: HEADED,
                    values: vec!["false".into()],
                });
            }
            if let Some(values) = matches.get_many::<String>(key.name) {
                given.push(Given {
                    key,
                    flag: key.flag,
                    values: values.cloned().collect(),
                });
            }
        }
        Ok(Flags { given })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for Flags {
    fn augment_args(command: clap::Command) -> clap::Command {
        let flagged = KEYS.iter().filter(|key| !key.flag.is_empty());
        let command = flagged.fold(command, |command, key| {
            let arg = Arg::new(key.name)
                .long(key.flag)
                .global(true)
                .value_name(key.value_name)
                .action(ArgAction::Append)
                .help(format!("{} [{}]", key.summary(), key.env));
            let arg = if key.switch {
                arg.num_args(0..=1)
                    .require_equals(true)
                    .default_missing_value("true")
            } else {
                arg
            };
            command.arg(arg)
        });
        command.arg(
            Arg::new(HEADED)
                .long(HEADED)
                .global(true)
                .action(ArgAction::SetTrue)
                .help("Show the browser window (needs a display): --headless=false"),
        )
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}
