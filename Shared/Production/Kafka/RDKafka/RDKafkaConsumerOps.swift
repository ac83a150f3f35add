import CRdKafka
import Runtime

extension RDKafkaClient {
    /// Routes the main queue (errors, statistics, rebalances) into the consumer queue, then subscribes.
    func subscribe(_ topics: [String]) throws(KafkaError) {
        let redirect = rd_kafka_poll_set_consumer(handle)
        guard redirect == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(redirect, operation: "poll_set_consumer") }
        let code = RDKafkaPartitionList.with(topics.map { (KafkaTopicPartition(topic: $0, partition: -1), nil) }) { list in
            rd_kafka_subscribe(handle, list)
        }
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(code, operation: "subscribe to \(topics.joined(separator: ","))")
        }
    }

    /// One `rd_kafka_consumer_poll`: a copied message, nil on timeout or a non-fatal event
    /// (logged), or a thrown fatal error. Blocking; call on the consumer's poll queue only.
    func consumerPoll(timeoutMs: Int32, logger: Logger) throws(KafkaError) -> KafkaMessage? {
        guard let message = rd_kafka_consumer_poll(handle, timeoutMs) else { return nil }
        defer { rd_kafka_message_destroy(message) }
        let code = message.pointee.err
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
            let topic = message.pointee.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
            let operation = "consume \(topic)[\(message.pointee.partition)]"
            if let fatal = fatalError(operation: operation) { throw fatal }
            let error = KafkaError(code, operation: operation, message: String(cString: rd_kafka_message_errstr(message)))
            logger.warning("consumer event", ["error": error.description])
            return nil
        }
        return KafkaMessage(copying: message)
    }

    /// Synchronously commits `offsets` (the next offset to read, per partition). Blocking.
    func commit(_ offsets: [KafkaTopicPartition: Int64]) throws(KafkaError) {
        let sorted = offsets.sorted { $0.key < $1.key }
        let operation = "commit " + sorted.map { "\($0.key)@\($0.value)" }.joined(separator: ",")
        let failure: KafkaError? = RDKafkaPartitionList.with(sorted.map { ($0.key, $0.value) }) { list in
            let code = rd_kafka_commit(handle, list, 0)
            guard code == RD_KAFKA_RESP_ERR_NO_ERROR else { return KafkaError(code, operation: operation) }
            for element in RDKafkaPartitionList.elements(list) where element.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                return KafkaError(element.err, operation: operation)
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// True when librdkafka considers the current assignment lost involuntarily (the session timed
    /// out, the generation changed, the poll interval was exceeded). Cleared by the next assignment.
    /// Reads an atomic flag; safe from any thread.
    var assignmentLost: Bool { rd_kafka_assignment_lost(handle) != 0 }

    /// Leaves the group as far as it can within `limitMs` (the close runs on librdkafka's background thread; its
    /// callbacks are served here), for a client being replaced: a stranded member's coordinator may never answer,
    /// so it must not wait as long as `rd_kafka_consumer_close` would. Returns whether the close finished; the
    /// handle is destroyed without a second close either way (``abandonWithoutClose()``). Blocking.
    @discardableResult
    func closeConsumer(withinMs limitMs: Int) -> Bool {
        abandonWithoutClose()
        guard let queue = rd_kafka_queue_new(handle) else { return false }
        defer { rd_kafka_queue_destroy(queue) }
        if let error = rd_kafka_consumer_close_queue(handle, queue) {
            rd_kafka_error_destroy(error)
            return false
        }
        let deadline = ContinuousClock.now + .milliseconds(limitMs)
        let cooperative = rd_kafka_rebalance_protocol(handle).map { String(cString: $0) } == "COOPERATIVE"
        while rd_kafka_consumer_closed(handle) == 0 {
            guard ContinuousClock.now < deadline else { return false }
            // Events, not callbacks: the queue also carries fetched messages and errors, which a callback poll cannot
            // serve (librdkafka asserts). A revocation is applied here; everything else is dropped.
            guard let event = rd_kafka_queue_poll(queue, 100) else { continue }
            if rd_kafka_event_type(event) == RD_KAFKA_EVENT_REBALANCE {
                if cooperative, let partitions = rd_kafka_event_topic_partition_list(event) {
                    if let error = rd_kafka_incremental_unassign(handle, partitions) { rd_kafka_error_destroy(error) }
                } else {
                    _ = rd_kafka_assign(handle, nil)
                }
            }
            rd_kafka_event_destroy(event)
        }
        return true
    }

    /// Leaves the group (revoking the assignment through the rebalance callback). Blocking.
    func closeConsumer() throws(KafkaError) {
        let code = rd_kafka_consumer_close(handle)
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(code, operation: "close consumer") }
    }
}
