import CRdKafka

/// Cluster and topic-configuration calls for topic reconciliation. Blocking: run them on the owning KafkaAdmin's queue.
extension RDKafkaClient {
    /// Brokers and every topic with its partitions' replica and in-sync counts.
    func clusterMetadata(timeoutMs: Int32) throws(KafkaError) -> KafkaClusterMetadata {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let code = rd_kafka_metadata(handle, 1, nil, &metadata, timeoutMs)
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else {
            rebootstrap(reason: "no broker answered a metadata request (\(String(cString: rd_kafka_err2name(code))))")
            throw KafkaError(code, operation: "metadata")
        }
        defer { rd_kafka_metadata_destroy(metadata) }
        let brokers = UnsafeBufferPointer(start: metadata.pointee.brokers, count: Int(metadata.pointee.broker_cnt))
            .map { KafkaClusterMetadata.Broker(id: $0.id, host: String(cString: $0.host), port: $0.port) }
        let topics = UnsafeBufferPointer(start: metadata.pointee.topics, count: Int(metadata.pointee.topic_cnt))
            .filter { $0.err == RD_KAFKA_RESP_ERR_NO_ERROR }
            .map { topic in
                let partitions = UnsafeBufferPointer(start: topic.partitions, count: Int(topic.partition_cnt)).map {
                    KafkaClusterMetadata.Partition(id: $0.id, replicas: Int($0.replica_cnt), inSync: Int($0.isr_cnt))
                }
                return KafkaClusterMetadata.Topic(name: String(cString: topic.topic), partitions: partitions.sorted { $0.id < $1.id })
            }
        return KafkaClusterMetadata(brokers: brokers.sorted { $0.id < $1.id }, topics: topics.sorted { $0.name < $1.name })
    }

    /// Each topic's configuration set on the topic itself (source DYNAMIC_TOPIC_CONFIG), keyed by topic.
    func topicOverrides(_ names: [String], timeoutMs: Int32) throws(KafkaError) -> [String: [String: String]] {
        var resources: [OpaquePointer?] = names.map { rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, $0) }
        defer { for resource in resources { rd_kafka_ConfigResource_destroy(resource) } }
        let operation = "describe configs of " + names.joined(separator: ",")
        return try adminRequest(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, timeoutMs: timeoutMs, operation: operation) { options, queue in
            resources.withUnsafeMutableBufferPointer { rd_kafka_DescribeConfigs(handle, $0.baseAddress, $0.count, options, queue) }
        } read: { event throws(KafkaError) in
            var count = 0
            let results = rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(event), &count)
            var overrides: [String: [String: String]] = [:]
            for resource in UnsafeBufferPointer(start: results, count: count) {
                guard let resource else { continue }
                let name = String(cString: rd_kafka_ConfigResource_name(resource))
                let code = rd_kafka_ConfigResource_error(resource)
                guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    throw KafkaError(code, operation: "describe configs of \(name)",
                                     message: rd_kafka_ConfigResource_error_string(resource).map { String(cString: $0) })
                }
                var entryCount = 0
                let entries = rd_kafka_ConfigResource_configs(resource, &entryCount)
                var values: [String: String] = [:]
                for entry in UnsafeBufferPointer(start: entries, count: entryCount) {
                    guard let entry, rd_kafka_ConfigEntry_source(entry) == RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG,
                          let value = rd_kafka_ConfigEntry_value(entry) else { continue }
                    values[String(cString: rd_kafka_ConfigEntry_name(entry))] = String(cString: value)
                }
                overrides[name] = values
            }
            return overrides
        }
    }

    /// Sets a topic's whole override set to `config` (legacy AlterConfigs replaces the set: pass every override to keep).
    func replaceTopicOverrides(_ name: String, config: [String: String], timeoutMs: Int32) throws(KafkaError) {
        var resources: [OpaquePointer?] = [rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, name)]
        defer { for resource in resources { rd_kafka_ConfigResource_destroy(resource) } }
        for (key, value) in config.sorted(by: { $0.key < $1.key }) {
            let code = rd_kafka_ConfigResource_set_config(resources[0], key, value)
            guard code == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(code, operation: "alter config of \(name): \(key)=\(value)") }
        }
        let operation = "alter configs of \(name)"
        let failure: KafkaError? = try adminRequest(RD_KAFKA_ADMIN_OP_ALTERCONFIGS, timeoutMs: timeoutMs, operation: operation) { options, queue in
            resources.withUnsafeMutableBufferPointer { rd_kafka_AlterConfigs(handle, $0.baseAddress, $0.count, options, queue) }
        } read: { event in
            var count = 0
            let results = rd_kafka_AlterConfigs_result_resources(rd_kafka_event_AlterConfigs_result(event), &count)
            for resource in UnsafeBufferPointer(start: results, count: count) {
                guard let resource else { continue }
                let code = rd_kafka_ConfigResource_error(resource)
                if code != RD_KAFKA_RESP_ERR_NO_ERROR {
                    return KafkaError(code, operation: operation, message: rd_kafka_ConfigResource_error_string(resource).map { String(cString: $0) })
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Raises `name`'s partition count to `total`.
    func createPartitions(_ name: String, total: Int, timeoutMs: Int32) throws(KafkaError) {
        var errorText = [CChar](repeating: 0, count: 512)
        guard let request = rd_kafka_NewPartitions_new(name, total, &errorText, errorText.count) else {
            throw KafkaError(RD_KAFKA_RESP_ERR__INVALID_ARG, operation: "add partitions to \(name)", message: Self.text(errorText))
        }
        var requests: [OpaquePointer?] = [request]
        defer { rd_kafka_NewPartitions_destroy(request) }
        let operation = "add partitions to \(name) (\(total) in all)"
        let outcome = try adminRequest(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, timeoutMs: timeoutMs, operation: operation) { options, queue in
            rd_kafka_AdminOptions_set_operation_timeout(options, timeoutMs, nil, 0)
            requests.withUnsafeMutableBufferPointer { rd_kafka_CreatePartitions(handle, $0.baseAddress, $0.count, options, queue) }
        } read: { event in
            var count = 0
            let results = rd_kafka_CreatePartitions_result_topics(rd_kafka_event_CreatePartitions_result(event), &count)
            return Self.topicOutcomes(results, count: count, verb: "add partitions to")
        }
        if case .some(.some(let error)) = outcome[name] { throw error }
    }
}
