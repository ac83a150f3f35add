import CRdKafka
import Runtime

// C callbacks. Each one finds its RDKafkaCallbackContext through the rd_kafka opaque, which the
// owning RDKafkaClient keeps alive until after rd_kafka_destroy.

private func context(_ opaque: UnsafeMutableRawPointer?) -> RDKafkaCallbackContext? {
    opaque.map { Unmanaged<RDKafkaCallbackContext>.fromOpaque($0).takeUnretainedValue() }
}

/// librdkafka's log lines (syslog levels) go to the client's logger. Called on librdkafka threads.
func rdkafkaLogCallback(_ rk: OpaquePointer?, _ level: Int32, _ facility: UnsafePointer<CChar>?, _ text: UnsafePointer<CChar>?) {
    guard let rk, let context = context(rd_kafka_opaque(rk)) else { return }
    let logLevel: LogLevel = switch level {
    case ...3: .error
    case 4: .warning
    case 5, 6: .info
    default: .debug
    }
    let message = text.map { String(cString: $0) } ?? ""
    if level <= 4, RDKafkaSecurityFailure.matches(message) { context.securityFailure.withLock { $0 = message } }
    context.logger.log(logLevel, message, [
        "facility": facility.map { String(cString: $0) } ?? "",
        "client": String(cString: rd_kafka_name(rk)),
    ])
}

/// Client-level errors (all brokers down, fatal idempotence errors). Served by poll.
func rdkafkaErrorCallback(_ rk: OpaquePointer?, _ code: Int32, _ reason: UnsafePointer<CChar>?, _ opaque: UnsafeMutableRawPointer?) {
    guard let context = context(opaque) else { return }
    let error = rd_kafka_resp_err_t(rawValue: code)
    let fatal = error == RD_KAFKA_RESP_ERR__FATAL
    if error == RD_KAFKA_RESP_ERR__AUTHENTICATION || error == RD_KAFKA_RESP_ERR__SSL {
        context.securityFailure.withLock { $0 = reason.map { String(cString: $0) } ?? String(cString: rd_kafka_err2name(error)) }
    }
    context.logger.log(fatal ? .error : .warning, "librdkafka error", [
        "code": String(code),
        "name": String(cString: rd_kafka_err2name(error)),
        "reason": reason.map { String(cString: $0) } ?? "",
        "fatal": String(fatal),
    ])
}

/// Delivery report of one produced message: resolves and releases its RDKafkaDeliveryHandler.
func rdkafkaDeliveryCallback(_ rk: OpaquePointer?, _ message: UnsafePointer<rd_kafka_message_t>?, _ opaque: UnsafeMutableRawPointer?) {
    guard let message, let raw = message.pointee._private else { return }
    let handler = Unmanaged<RDKafkaDeliveryHandler>.fromOpaque(raw).takeRetainedValue()
    let topic = message.pointee.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
    let code = message.pointee.err
    if code == RD_KAFKA_RESP_ERR_NO_ERROR {
        handler.complete(.success(KafkaDeliveryReport(topic: topic, partition: message.pointee.partition, offset: message.pointee.offset)))
    } else {
        var error = KafkaError(code, operation: "produce to \(topic)")
        if let rk, let fatal = RDKafkaFatal.check(rk, operation: "produce to \(topic)") { error = fatal }
        handler.complete(.failure(error))
    }
}

/// Group rebalance: applies the assignment (eager or cooperative) and reports it.
/// Runs inside rd_kafka_consumer_poll / rd_kafka_consumer_close, on the consumer's poll queue.
func rdkafkaRebalanceCallback(
    _ rk: OpaquePointer?, _ code: rd_kafka_resp_err_t,
    _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?, _ opaque: UnsafeMutableRawPointer?
) {
    guard let rk, let context = context(opaque), let state = context.consumer else { return }
    let list = partitions.map { RDKafkaPartitionList.topicPartitions($0) } ?? []
    let protocolName = rd_kafka_rebalance_protocol(rk).map { String(cString: $0) } ?? "NONE"
    let cooperative = protocolName == "COOPERATIVE"
    let client = String(cString: rd_kafka_name(rk))
    var failure: KafkaError?
    switch code {
    case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
        if cooperative {
            if let error = rd_kafka_incremental_assign(rk, partitions) {
                failure = KafkaError(consuming: error, operation: "incremental assign")
            }
        } else {
            let result = rd_kafka_assign(rk, partitions)
            if result != RD_KAFKA_RESP_ERR_NO_ERROR { failure = KafkaError(result, operation: "assign") }
        }
        state.applied(.assigned(list), cooperative: cooperative, protocolName: protocolName, client: client)
    case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
        let lost = rd_kafka_assignment_lost(rk) != 0
        if cooperative {
            if let error = rd_kafka_incremental_unassign(rk, partitions) {
                failure = KafkaError(consuming: error, operation: "incremental unassign")
            }
        } else {
            let result = rd_kafka_assign(rk, nil)
            if result != RD_KAFKA_RESP_ERR_NO_ERROR { failure = KafkaError(result, operation: "unassign") }
        }
        state.applied(.revoked(list, lost: lost), cooperative: cooperative, protocolName: protocolName, client: client)
    default:
        _ = rd_kafka_assign(rk, nil)
        state.applied(.failed(KafkaError(code, operation: "rebalance")), cooperative: cooperative, protocolName: protocolName, client: client)
    }
    if let failure {
        context.logger.error("applying the rebalance failed", ["error": failure.description])
    }
}

/// Statistics JSON (every statistics.interval.ms): feeds a consumer's per-partition lag, and re-bootstraps a client
/// left without any broker (``RDKafkaClient/rebootstrap(reason:)``). Returns 0 so librdkafka frees the text.
func rdkafkaStatisticsCallback(_ rk: OpaquePointer?, _ json: UnsafeMutablePointer<CChar>?, _ length: Int, _ opaque: UnsafeMutableRawPointer?) -> Int32 {
    guard let rk, let json, let context = context(opaque) else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: json, count: length)
    let report = KafkaStatisticsParser.report(fromJSON: Array(bytes), lag: context.consumer != nil)
    context.consumer?.statisticsArrived(report.partitionLag)
    if report.knownBrokers == 0 {
        RDKafkaRebootstrap.addBootstrapBrokers(rk, context: context, reason: "the client knows no broker (statistics)")
    }
    return 0
}

/// The project's re-bootstrap. librdkafka (2.10 and later) removes every broker that a Metadata response does not
/// list. Apache Kafka leaves a fenced broker out of its Metadata responses: a single broker that was paused past its
/// controller session (or every broker of a cluster restarting at once) answers with no broker at all, and the client
/// drops all of its connections. Its own re-bootstrap starts only from a metadata refresh it can no longer send, so
/// the client stays without a broker: a consumer outside its group for good, a producer that never delivers (issue
/// 30). Re-adding the bootstrap servers (`rd_kafka_brokers_add`) reconnects it; librdkafka drops the bootstrap entries
/// again once metadata lists real brokers, so adding them when brokers exist costs a connection attempt, no more.
enum RDKafkaRebootstrap {
    /// - Parameter level: `.warning` when the client is known to have no broker; lower for the precaution taken after
    ///   a call no broker answered (a paused broker fails every probe).
    static func addBootstrapBrokers(_ rk: OpaquePointer, context: RDKafkaCallbackContext, reason: String, level: LogLevel = .warning) {
        guard let servers = context.bootstrapServers.withLock({ $0 }) else { return }
        let added = rd_kafka_brokers_add(rk, servers)
        context.rebootstraps.add(1, ordering: .relaxed)
        context.logger.log(level, "re-bootstrapping the client: adding the bootstrap servers again", [
            "client": String(cString: rd_kafka_name(rk)), "reason": reason, "brokers": servers, "added": String(added),
        ])
    }
}

/// Reads an instance's fatal error, if one was raised.
enum RDKafkaFatal {
    static func check(_ rk: OpaquePointer, operation: String) -> KafkaError? {
        var text = [CChar](repeating: 0, count: 512)
        let code = rd_kafka_fatal_error(rk, &text, text.count)
        guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        let message = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return KafkaError(code: code.rawValue, name: String(cString: rd_kafka_err2name(code)), message: message,
                          operation: operation, isRetriable: false, isFatal: true)
    }
}

/// Recognises librdkafka's log lines of a failed TLS handshake or SASL authentication.
enum RDKafkaSecurityFailure {
    static func matches(_ text: String) -> Bool {
        ["SASL authentication error", "SSL handshake failed", "certificate verify failed", "Authentication failed",
         "SASL handshake failed", "Failed to acquire SASL OAUTHBEARER token", "SSL transport error"].contains { text.contains($0) }
    }
}
