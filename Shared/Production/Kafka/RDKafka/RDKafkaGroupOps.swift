import CRdKafka

/// Group reads that do not go through librdkafka's admin API: committed offsets through a consumer handle's own
/// group coordinator (OffsetFetch, `rd_kafka_committed`) and the group's state through `rd_kafka_list_groups`
/// (ListGroups/DescribeGroups). The admin API's coordinator request (`ListConsumerGroupOffsets`,
/// `DescribeConsumerGroups`) has a use-after-free when the coordinator's connection drops mid-request
/// (librdkafka's `rd_kafka_enq_once_del_source_return` assertion, confluentinc/librdkafka pull request 5397);
/// these paths do not use it. Blocking: run them on the owner's serial queue.
extension RDKafkaClient {
    /// The committed next-offset of this handle's `group.id` for each of `partitions` (absent where the group
    /// never committed). The handle must be a consumer; it need not subscribe.
    func committed(_ partitions: [KafkaTopicPartition], timeoutMs: Int32) throws(KafkaError) -> [KafkaTopicPartition: Int64] {
        let operation = "read committed offsets"
        let result: Result<[KafkaTopicPartition: Int64], KafkaError> = RDKafkaPartitionList.with(partitions.map { ($0, nil) }) { list in
            let code = rd_kafka_committed(handle, list, timeoutMs)
            guard code == RD_KAFKA_RESP_ERR_NO_ERROR else { return .failure(KafkaError(code, operation: operation)) }
            var offsets: [KafkaTopicPartition: Int64] = [:]
            for element in RDKafkaPartitionList.elements(list) {
                if element.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                    return .failure(KafkaError(element.err, operation: "\(operation) of \(String(cString: element.topic))[\(element.partition)]"))
                }
                if element.offset >= 0 {
                    offsets[KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition)] = element.offset
                }
            }
            return .success(offsets)
        }
        rd_kafka_poll(handle, 0)  // serve the log and error callbacks the request queued
        return try result.get()
    }

    /// The group's state and members as its coordinator describes them.
    func describeGroup(_ group: String, timeoutMs: Int32) throws(KafkaError) -> KafkaGroupDescription {
        var list: UnsafePointer<rd_kafka_group_list>?
        let code = rd_kafka_list_groups(handle, group, &list, timeoutMs)
        rd_kafka_poll(handle, 0)
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { throw KafkaError(code, operation: "describe group \(group)") }
        defer { rd_kafka_group_list_destroy(list) }
        let groups = UnsafeBufferPointer(start: list.pointee.groups, count: Int(list.pointee.group_cnt))
        guard let info = groups.first(where: { String(cString: $0.group) == group }) else {
            return KafkaGroupDescription(group: group, state: "Dead", members: 0, protocolName: "")
        }
        if info.err != RD_KAFKA_RESP_ERR_NO_ERROR { throw KafkaError(info.err, operation: "describe group \(group)") }
        return KafkaGroupDescription(group: group, state: info.state.map { String(cString: $0) } ?? "",
                                     members: Int(info.member_cnt), protocolName: info.protocol.map { String(cString: $0) } ?? "")
    }
}
