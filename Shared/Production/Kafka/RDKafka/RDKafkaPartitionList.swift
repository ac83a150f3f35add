import CRdKafka

/// Copies between `rd_kafka_topic_partition_list_t` and Swift values.
enum RDKafkaPartitionList {
    /// The topic/partition pairs of a list.
    static func topicPartitions(_ list: UnsafePointer<rd_kafka_topic_partition_list_t>) -> [KafkaTopicPartition] {
        elements(list).map { KafkaTopicPartition(topic: String(cString: $0.topic), partition: $0.partition) }
    }

    static func topicPartitions(_ list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) -> [KafkaTopicPartition] {
        topicPartitions(UnsafePointer(list))
    }

    /// The raw elements of a list (valid while the list lives).
    static func elements(_ list: UnsafePointer<rd_kafka_topic_partition_list_t>) -> UnsafeBufferPointer<rd_kafka_topic_partition_t> {
        UnsafeBufferPointer(start: list.pointee.elems, count: Int(list.pointee.cnt))
    }

    /// Runs `body` with a new list holding `offsets` (offset per partition; nil leaves it unset), then destroys it.
    static func with<R>(
        _ offsets: [(KafkaTopicPartition, Int64?)],
        _ body: (UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) throws -> R
    ) rethrows -> R {
        let list = rd_kafka_topic_partition_list_new(Int32(offsets.count))!
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for (topicPartition, offset) in offsets {
            let element = rd_kafka_topic_partition_list_add(list, topicPartition.topic, topicPartition.partition)!
            if let offset { element.pointee.offset = offset }
        }
        return try body(list)
    }
}
