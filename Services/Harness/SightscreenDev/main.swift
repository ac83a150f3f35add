import CommandLineSupport
import Foundation
import Runtime

// sightscreen-dev: the development launcher (`sightscreen dev` runs it): the whole stack replaying a
// Cricsheet match to simulated devices; and `token` / `dev-keys` (`sightscreen token`, `sightscreen dev-keys`
// run it): dev JWTs signed with the dev key pair; and `check-day` (issue 42's independent checker over a match-day record). Development harness; never part of the production image.
// A reader of stdout that went away (a pipe to `tee`) must not kill it by SIGPIPE: it still has to
// stop the processes it started.
signal(SIGPIPE, SIG_IGN)
let console = Console()
let arguments = ArraySlice(CommandLine.arguments.dropFirst())
let command = ["token", "dev-keys", "check-day"].contains(arguments.first ?? "") ? arguments.first ?? "" : "dev"
let usage = switch command {
case "token": "sightscreen token --user ID [--admin] [--ttl SECONDS]"
case "dev-keys": "sightscreen dev-keys"
case "check-day": "sightscreen check-day --record DIR [--out DIR]"
default: "sightscreen dev [--match ID] [--also ID,ID] [--speed X] [--devices N] [--channel-share X] [--cricsheet DIR] [--free-ports] [--prometheus] [--exit-when-done]"
}
do {
    switch arguments.first {
    case "token": try TokenCommand(console: console, environment: EnvironmentReader()).token(arguments.dropFirst())
    case "dev-keys": try TokenCommand(console: console, environment: EnvironmentReader()).devKeys()
    case "check-day": try CheckDayCommand(console: console).run(arguments.dropFirst())
    default: try await DevLauncher(console: console, environment: EnvironmentReader()).run(arguments)
    }
    exit(0)
} catch let error as ExitCode {
    exit(error.status)
} catch let error as UsageError {
    console.error("sightscreen \(command): \(error.message)\n\nusage: \(usage)")
    exit(2)
} catch {
    console.error("sightscreen \(command): \(error)")
    exit(1)
}
