import CRdKafka

/// Blocking admin and metadata calls. Run them on the owning KafkaAdmin's serial queue.
extension RDKafkaClient {
    /// Topics in the cluster metadata (all topics), with their partition ids.
    func topicMetadata(timeoutMs: Int32) throws(KafkaError) -> [KafkaTopicDescription] {
        try clusterMetadata(timeoutMs: timeoutMs).topics.map { topic in
            KafkaTopicDescription(name: topic.name, partitions: topic.partitions.map(\.id))
        }
    }

    /// One metadata round trip to any broker (brokers only, no topics): succeeds only when a broker
    /// answers within `timeoutMs`. Blocking. A paused broker keeps its TCP connections open, so
    /// only an answer proves it is there.
    func brokerRoundTrip(timeoutMs: Int32) throws(KafkaError) {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let code = rd_kafka_metadata(handle, 0, nil, &metadata, timeoutMs)
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else {
            // No answer: the client may have dropped every broker (see RDKafkaRebootstrap).
            rebootstrap(reason: "no broker answered a metadata request (\(String(cString: rd_kafka_err2name(code))))")
            throw KafkaError(code, operation: "reach a broker (metadata request, \(timeoutMs) ms)")
        }
        rd_kafka_metadata_destroy(metadata)
    }

    /// Creates topics; returns the per-topic error (nil = created) keyed by topic name.
    func createTopics(_ specs: [KafkaTopicSpec], timeoutMs: Int32) throws(KafkaError) -> [String: KafkaError?] {
        var errorText = [CChar](repeating: 0, count: 512)
        var newTopics: [OpaquePointer?] = []
        defer { for topic in newTopics { rd_kafka_NewTopic_destroy(topic) } }
        for spec in specs {
            guard let topic = rd_kafka_NewTopic_new(spec.name, spec.partitions, spec.replicationFactor, &errorText, errorText.count) else {
                throw KafkaError(RD_KAFKA_RESP_ERR__INVALID_ARG, operation: "create topic \(spec.name)", message: Self.text(errorText))
            }
            newTopics.append(topic)
            for (key, value) in spec.config.sorted(by: { $0.key < $1.key }) {
                let code = rd_kafka_NewTopic_set_config(topic, key, value)
                guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    throw KafkaError(code, operation: "create topic \(spec.name) with \(key)=\(value)")
                }
            }
        }
        let operation = "create topics " + specs.map(\.name).joined(separator: ",")
        return try adminRequest(RD_KAFKA_ADMIN_OP_CREATETOPICS, timeoutMs: timeoutMs, operation: operation) { options, queue in
            rd_kafka_AdminOptions_set_operation_timeout(options, timeoutMs, nil, 0)
            newTopics.withUnsafeMutableBufferPointer { rd_kafka_CreateTopics(handle, $0.baseAddress, $0.count, options, queue) }
        } read: { event in
            var count = 0
            let results = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count)
            return Self.topicOutcomes(results, count: count, verb: "create")
        }
    }

    /// Deletes `names`; returns each topic's error (nil when deleted).
    func deleteTopics(_ names: [String], timeoutMs: Int32) throws(KafkaError) -> [String: KafkaError?] {
        var requests: [OpaquePointer?] = names.map { rd_kafka_DeleteTopic_new($0) }
        defer { for request in requests { rd_kafka_DeleteTopic_destroy(request) } }
        let operation = "delete topics " + names.joined(separator: ",")
        return try adminRequest(RD_KAFKA_ADMIN_OP_DELETETOPICS, timeoutMs: timeoutMs, operation: operation) { options, queue in
            rd_kafka_AdminOptions_set_operation_timeout(options, timeoutMs, nil, 0)
            requests.withUnsafeMutableBufferPointer { rd_kafka_DeleteTopics(handle, $0.baseAddress, $0.count, options, queue) }
        } read: { event in
            var count = 0
            let results = rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(event), &count)
            return Self.topicOutcomes(results, count: count, verb: "delete")
        }
    }

    /// Each topic's error from a CreateTopics/DeleteTopics result (nil when it succeeded).
    static func topicOutcomes(_ results: UnsafePointer<OpaquePointer?>?, count: Int, verb: String) -> [String: KafkaError?] {
        var outcome: [String: KafkaError?] = [:]
        for result in UnsafeBufferPointer(start: results, count: count) {
            guard let result else { continue }
            let name = String(cString: rd_kafka_topic_result_name(result))
            let code = rd_kafka_topic_result_error(result)
            outcome[name] = code == RD_KAFKA_RESP_ERR_NO_ERROR ? nil
                : KafkaError(code, operation: "\(verb) topic \(name)",
                             message: rd_kafka_topic_result_error_string(result).map { String(cString: $0) })
        }
        return outcome
    }

    /// Low and high watermark of one partition from the broker (ListOffsets).
    func watermarks(of partition: KafkaTopicPartition, timeoutMs: Int32) throws(KafkaError) -> (low: Int64, high: Int64) {
        var low: Int64 = -1
        var high: Int64 = -1
        let code = rd_kafka_query_watermark_offsets(handle, partition.topic, partition.partition, &low, &high, timeoutMs)
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(code, operation: "watermarks of \(partition)") }
        return (low, high)
    }

    /// Sends one admin request on a private queue and reads its single result event.
    func adminRequest<R>(
        _ op: rd_kafka_admin_op_t, timeoutMs: Int32, operation: String,
        send: (OpaquePointer, OpaquePointer) -> Void,
        read: (OpaquePointer) throws(KafkaError) -> R
    ) throws(KafkaError) -> R {
        defer { rd_kafka_poll(handle, 0) }  // serve error callbacks queued on the main queue
        let queue = rd_kafka_queue_new(handle)!
        defer { rd_kafka_queue_destroy(queue) }
        let options = rd_kafka_AdminOptions_new(handle, op)!
        defer { rd_kafka_AdminOptions_destroy(options) }
        rd_kafka_AdminOptions_set_request_timeout(options, timeoutMs, nil, 0)
        send(options, queue)
        guard let event = rd_kafka_queue_poll(queue, timeoutMs + 1000) else {
            throw KafkaError(RD_KAFKA_RESP_ERR__TIMED_OUT, operation: operation)
        }
        defer { rd_kafka_event_destroy(event) }
        let code = rd_kafka_event_error(event)
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(code, operation: operation, message: rd_kafka_event_error_string(event).map { String(cString: $0) })
        }
        return try read(event)
    }

    /// The C string librdkafka wrote into an error buffer.
    static func text(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
