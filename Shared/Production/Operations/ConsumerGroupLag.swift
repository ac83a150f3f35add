import Contracts
import Kafka

/// The services' consumer lag as the broker reports it (`ServiceConsumerGroups.all`, committed offsets against end
/// offsets): what the api's `/admin/pipeline` and the operator's match report show.
public struct ConsumerGroupLag: Codable, Sendable, Equatable {
    public var group: String
    public var topic: String
    public var partitions: Int
    /// Sum over partitions of end offset − committed offset (end offset when nothing was committed).
    public var lag: Int64

    /// Every service group's lag per topic, or what was read before the broker stopped answering and why.
    public static func read(_ admin: KafkaAdmin?) async -> (lag: [ConsumerGroupLag], error: String?) {
        guard let admin else { return ([], "no Kafka admin client") }
        var result: [ConsumerGroupLag] = []
        do {
            for (group, topics) in ServiceConsumerGroups.all {
                for topic in topics {
                    let partitions = try await admin.lag(group: group, topics: [topic.name], timeout: .seconds(3))
                    result.append(ConsumerGroupLag(group: group, topic: topic.name, partitions: partitions.count,
                                                  lag: partitions.reduce(0) { $0 + $1.lag }))
                }
            }
        } catch {
            return (result, String(describing: error))
        }
        return (result, nil)
    }
}
