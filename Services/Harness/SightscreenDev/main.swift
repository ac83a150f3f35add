import CommandLineSupport
import Foundation
import Runtime

// sightscreen-dev: the development launcher (`sightscreen dev` runs it): the whole stack replaying a
// Cricsheet match to simulated devices. Development harness; never part of the production image.
// A reader of stdout that went away (a pipe to `tee`) must not kill it by SIGPIPE: it still has to
// stop the processes it started.
signal(SIGPIPE, SIG_IGN)
let console = Console()
do {
    try await DevLauncher(console: console, environment: EnvironmentReader()).run(ArraySlice(CommandLine.arguments.dropFirst()))
    exit(0)
} catch let error as ExitCode {
    exit(error.status)
} catch let error as UsageError {
    console.error("sightscreen dev: \(error.message)\n\nusage: sightscreen dev [--match ID] [--speed X] [--devices N] [--channel-share X] [--cricsheet DIR] [--free-ports] [--exit-when-done]")
    exit(2)
} catch {
    console.error("sightscreen dev: \(error)")
    exit(1)
}
