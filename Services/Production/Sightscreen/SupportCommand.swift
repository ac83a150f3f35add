import CommandLineSupport
import Contracts
import Foundation
import Operations
import Postgres
import Runtime

/// `sightscreen user USER`, `sightscreen device USER DEVICE`, `sightscreen activity MATCH USER DEVICE` (each `[--json]`):
/// support's view (`SupportReport`) from DATABASE_URL — devices with masked tokens, each Live Activity's life and
/// deliveries from the delivery record, and the diagnosis's findings. An id that is not an id is a usage error (exit 2);
/// an unknown user, device or activity says so (exit 1). Every look-up is logged with the operator's login name.
struct SupportCommand {
    let console: Console
    let environment: EnvironmentReader

    func run(_ command: String, _ arguments: ArraySlice<String>) async throws {
        let names = switch command {
        case "user": ["USER"]
        case "device": ["USER", "DEVICE"]
        default: ["MATCH", "USER", "DEVICE"]
        }
        let usage = "usage: sightscreen \(command) \(names.joined(separator: " ")) [--json]"
        var json = false
        var ids: [String] = []
        for argument in arguments {
            if argument == "--json" { json = true } else if argument.hasPrefix("-") { throw UsageError(message: "\(command): unexpected \(argument) (\(usage))") } else { ids.append(argument) }
        }
        guard ids.count == names.count else { throw UsageError(message: usage) }
        for (name, id) in zip(names, ids) where !Identifier.isValid(id) {
            throw UsageError(message: "\(command): \(name) must be \(Identifier.rule)")
        }
        let logger = Logger(label: "sightscreen", minimumLevel: .info)
        logger.info("support look-up", ["event": "support_lookup", "scope": command, "ids": ids.joined(separator: "/"),
                                        "operator": environment.string("USER", default: "unknown")])
        let database = PostgresClient(configuration: try PostgresConfiguration.fromEnvironment(environment),
                                      logger: Logger(label: "sightscreen", minimumLevel: .error))
        let reader = SupportReportReader(database: database)
        let outcome: Result<SupportReport?, any Error>
        do {
            outcome = .success(try await {
                switch command {
                case "user": try await reader.user(ids[0])
                case "device": try await reader.device(userId: ids[0], deviceId: ids[1])
                default: try await reader.activity(matchId: ids[0], userId: ids[1], deviceId: ids[2])
                }
            }())
        } catch {
            outcome = .failure(error)
        }
        await database.shutdown()
        guard let report = try outcome.get() else {
            console.error("sightscreen: no \(command) \(ids.joined(separator: " / ")) is known (no device, follow, Live Activity or delivery record)")
            throw ExitCode(status: 1)
        }
        try console.report(report, json: json) { report.text }
    }
}
