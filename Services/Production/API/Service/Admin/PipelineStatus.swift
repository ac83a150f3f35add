import Kafka
import Matches
import Operations

/// The admin view of the pipeline: consumer lag of the service groups and row counts.
struct PipelineStatus: Sendable {
    let admin: KafkaAdmin?
    let matches: MatchStore

    struct Response: Encodable, Sendable {
        var lag: [ConsumerGroupLag]
        /// Why lag could not be read (the broker did not answer), else null.
        var lagError: String?
        var counts: [String: Int]
    }

    func status() async throws -> Response {
        let counts = try await PipelineCounts(database: matches.database).read()
        let (lag, error) = await ConsumerGroupLag.read(admin)
        return Response(lag: lag, lagError: error, counts: counts)
    }
}
