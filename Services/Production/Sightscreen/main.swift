import CommandLineSupport
import Foundation
import Runtime

// sightscreen: the operator CLI. `sightscreen help` lists the commands.
// A reader of stdout that went away (a pipe to `tee`) must not kill the CLI by SIGPIPE: `sightscreen
// dev` still has to stop the processes it started.
signal(SIGPIPE, SIG_IGN)
let arguments = Array(CommandLine.arguments.dropFirst())
let environment = EnvironmentReader()
let console = Console()
do {
    try await CommandLineTool(console: console, environment: environment).run(arguments)
    exit(0)
} catch let error as ExitCode {
    exit(error.status)
} catch let error as UsageError {
    console.error("sightscreen: \(error.message)\n\n\(CommandLineTool.usage)")
    exit(2)
} catch {
    console.error("sightscreen: \(error)")
    exit(1)
}
