import Foundation

/// Reads per-partition lag out of librdkafka's statistics JSON.
///
/// Uses the consumer's fetch high watermark (`hi_offset`) and `consumer_lag`, which are right on
/// Tansu (its ListOffsets "latest" answer is not).
enum KafkaStatisticsParser {
    /// What one statistics report says.
    struct Report {
        /// Lag per partition (consumers).
        var partitionLag: [KafkaPartitionLag]
        /// Brokers the client knows by address (`learned` from metadata or `configured` bootstrap ones); logical
        /// brokers (the group coordinator's handle) and the internal one do not count. nil: not in the report.
        var knownBrokers: Int?
    }

    /// - Parameter lag: whether to read the partitions' lag (consumers only; a producer's report has none to give).
    static func report(fromJSON bytes: [UInt8], lag: Bool) -> Report {
        guard let root = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return Report(partitionLag: [], knownBrokers: nil)
        }
        let knownBrokers = (root["brokers"] as? [String: Any]).map { brokers in
            brokers.values.filter { (($0 as? [String: Any])?["source"] as? String).map { $0 == "learned" || $0 == "configured" } ?? false }.count
        }
        return Report(partitionLag: lag ? partitionLag(root) : [], knownBrokers: knownBrokers)
    }

    /// One entry per partition the consumer wants (`desired`) and has a high watermark for.
    private static func partitionLag(_ root: [String: Any]) -> [KafkaPartitionLag] {
        guard let topics = root["topics"] as? [String: Any] else { return [] }
        var result: [KafkaPartitionLag] = []
        for (topicName, topicValue) in topics {
            guard let topic = topicValue as? [String: Any],
                  let partitions = topic["partitions"] as? [String: Any] else { continue }
            for (_, partitionValue) in partitions {
                guard let partition = partitionValue as? [String: Any],
                      let id = int(partition["partition"]), id >= 0,
                      partition["desired"] as? Bool ?? true,
                      let high = int(partition["hi_offset"]), high >= 0 else { continue }
                let committedRaw = int(partition["committed_offset"]) ?? -1
                let committed = committedRaw >= 0 ? committedRaw : nil
                let low = max(0, int(partition["lo_offset"]) ?? 0)
                let reported = int(partition["consumer_lag"]) ?? -1
                let lag = reported >= 0 ? reported : max(0, high - (committed ?? low))
                result.append(KafkaPartitionLag(topic: topicName, partition: Int32(id), committed: committed, endOffset: high, lag: lag))
            }
        }
        return result
    }

    private static func int(_ value: Any?) -> Int64? {
        (value as? NSNumber)?.int64Value
    }
}
