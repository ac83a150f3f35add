import CommandLineSupport
import FanOut
import Kafka
import Runtime
import DeadPushRedrive

/// `sightscreen redrive-dead [--group G] [--include-permanent] [--dry-run]`: sends the pushes on
/// `push.dead` that ran out of retries and have not expired back to `push.jobs` (`DeadPushRedriver`).
struct RedriveCommand {
    let console: Console
    let environment: EnvironmentReader

    func run(_ options: ArraySlice<String>) async throws {
        var group = "sightscreen-redrive"
        var includePermanent = false
        var dryRun = false
        var rest = options[...]
        while let option = rest.popFirst() {
            switch option {
            case "--group":
                guard let value = rest.popFirst(), !value.isEmpty else { throw UsageError(message: "--group needs a name") }
                group = value
            case "--include-permanent": includePermanent = true
            case "--dry-run": dryRun = true
            default: throw UsageError(message: "redrive-dead: unknown option \(option)")
            }
        }
        try KafkaLibrary.requireMinimumVersion()
        var redriver = DeadPushRedriver(
            cluster: try KafkaCluster(environment), group: group,
            logger: Logger(label: "sightscreen", minimumLevel: .warning))
        redriver.shards = try environment.int("PUSH_SHARDS", default: redriver.shards, in: 1...4096)
        redriver.includePermanent = includePermanent
        redriver.dryRun = dryRun
        let report = try await redriver.run()
        console.line((dryRun ? "dry run, nothing sent or committed: " : "") + report.description)
    }
}
