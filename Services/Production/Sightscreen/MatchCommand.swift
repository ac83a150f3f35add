import CommandLineSupport
import Foundation
import Kafka
import Operations
import Postgres
import Runtime

/// `sightscreen match ID [--json]`: the operator's view of one match (`MatchReport`) from DATABASE_URL (the tables and
/// the delivery record) and KAFKA_BROKERS (lag).
struct MatchCommand {
    let console: Console
    let environment: EnvironmentReader
    /// The broker admin client of `sightscreen` (nil: lag is reported unavailable).
    let admin: KafkaAdmin?

    func run(_ arguments: ArraySlice<String>) async throws {
        var json = false
        var matchId: String?
        for argument in arguments {
            switch argument {
            case "--json": json = true
            case let id where !id.hasPrefix("-") && matchId == nil: matchId = id
            default: throw UsageError(message: "match: unexpected \(argument) (usage: sightscreen match ID [--json])")
            }
        }
        guard let matchId, !matchId.isEmpty else { throw UsageError(message: "usage: sightscreen match ID [--json]") }
        let logger = Logger(label: "sightscreen", minimumLevel: .error)
        let database = PostgresClient(configuration: try PostgresConfiguration.fromEnvironment(environment), logger: logger)
        let outcome: Result<MatchReport, any Error>
        do {
            outcome = .success(try await MatchReportReader(database: database, admin: admin).report(matchId: matchId))
        } catch {
            outcome = .failure(error)
        }
        await database.shutdown()
        let report = try outcome.get()
        try console.report(report, json: json) { report.text }
    }
}
