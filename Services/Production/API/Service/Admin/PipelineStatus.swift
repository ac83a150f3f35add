import Contracts
import Kafka
import Matches

/// The admin view of the pipeline: consumer lag of the service groups and row counts.
struct PipelineStatus: Sendable {
    /// The consumer groups of the services and the topics they read.
    static let groups = ServiceConsumerGroups.all

    let admin: KafkaAdmin?
    let matches: MatchStore

    struct GroupLag: Encodable, Sendable {
        var group: String
        var topic: String
        var partitions: Int
        /// Sum over partitions of end offset − committed offset (end offset when nothing was committed).
        var lag: Int64
    }

    struct Response: Encodable, Sendable {
        var lag: [GroupLag]
        /// Why lag could not be read (the broker did not answer), else null.
        var lagError: String?
        var counts: [String: Int]
    }

    func status() async throws -> Response {
        let counts = try await PipelineCounts(database: matches.database).read()
        guard let admin else { return Response(lag: [], lagError: "no Kafka admin client", counts: counts) }
        var lag: [GroupLag] = []
        do {
            for (group, topics) in Self.groups {
                for topic in topics {
                    let partitions = try await admin.lag(group: group, topics: [topic.name], timeout: .seconds(3))
                    lag.append(GroupLag(group: group, topic: topic.name, partitions: partitions.count, lag: partitions.reduce(0) { $0 + $1.lag }))
                }
            }
        } catch {
            return Response(lag: lag, lagError: String(describing: error), counts: counts)
        }
        return Response(lag: lag, lagError: nil, counts: counts)
    }
}
