import CRdKafka
import Runtime

/// Blocking calls of a consumer handle that reads chosen partitions without a group (`KafkaPartitionReader`): run
/// them on the reader's serial queue.
extension RDKafkaClient {
    /// The first offset per partition whose timestamp is at or after `timestampMs` (ListOffsets by time); a partition
    /// with no such message maps to -1 (librdkafka's end).
    func offsets(atOrAfter timestampMs: Int64, of partitions: [KafkaTopicPartition], timeoutMs: Int32) throws(KafkaError)
        -> [KafkaTopicPartition: Int64]
    {
        let operation = "offsets for time \(timestampMs) of \(partitions.map(\.description).joined(separator: ","))"
        let result: Result<[KafkaTopicPartition: Int64], KafkaError> = RDKafkaPartitionList.with(partitions.map { ($0, timestampMs) }) { list in
            let code = rd_kafka_offsets_for_times(handle, list, timeoutMs)
            guard code == RD_KAFKA_RESP_ERR_NO_ERROR else { return .failure(KafkaError(code, operation: operation)) }
            var offsets: [KafkaTopicPartition: Int64] = [:]
            for element in RDKafkaPartitionList.elements(list) {
                guard element.err == RD_KAFKA_RESP_ERR_NO_ERROR else { return .failure(KafkaError(element.err, operation: operation)) }
                offsets[KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition)] = element.offset
            }
            return .success(offsets)
        }
        return try result.get()
    }

    /// Reads `partitions` from the given offsets (`rd_kafka_assign`, no group).
    func assign(_ offsets: [KafkaTopicPartition: Int64]) throws(KafkaError) {
        let sorted = offsets.sorted { $0.key < $1.key }
        let code = RDKafkaPartitionList.with(sorted.map { ($0.key, $0.value) }) { list in
            rd_kafka_assign(handle, list)
        }
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
            let what = sorted.map { "\($0.key)@\($0.value)" }.joined(separator: ",")
            throw KafkaError(code, operation: "assign \(what) to read")
        }
    }

    /// Stops reading every partition.
    func unassign() {
        _ = rd_kafka_assign(handle, nil)
    }
}
