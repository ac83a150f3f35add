import CRdKafka
import Runtime
import Synchronization

/// The single owner of one `rd_kafka_t`; destroys it in `deinit`.
///
/// `@unchecked Sendable`: the handle is immutable after init and librdkafka's API is thread-safe for
/// every call this module makes on it (produce, poll, commit, admin ops, metadata); calls that must
/// not overlap (consumer poll and close) are serialised by the owning public type's serial queue.
final class RDKafkaClient: @unchecked Sendable {
    /// The C handle. Only code in this `RDKafka/` folder touches it.
    let handle: OpaquePointer
    /// What the C callbacks reach through the opaque pointer. Released only after
    /// `rd_kafka_destroy` returned (deinit body runs before stored properties are released).
    let context: RDKafkaCallbackContext

    /// False when `rd_kafka_destroy` must not run the consumer close (leave the group, commit): for handles that
    /// never joined a group, and for a stranded consumer being replaced, whose close could wait on a coordinator
    /// that does not answer.
    private let closesConsumer: Atomic<Bool>

    enum Kind: String {
        case producer, consumer
    }

    /// Creates the client. `rd_kafka_new` takes the conf only on success; on failure it is destroyed here.
    init(kind: Kind, properties: [String: String], context: RDKafkaCallbackContext, closesConsumer: Bool = true) throws {
        self.closesConsumer = Atomic(closesConsumer)
        var properties = properties
        // Statistics feed the re-bootstrap check (RDKafkaRebootstrap) of every client whose queue is served
        // continuously: consumers (by their polls) and producers (by their poll thread).
        if context.consumer != nil || context.delivers, properties["statistics.interval.ms"] == nil {
            properties["statistics.interval.ms"] = "5000"
        }
        context.bootstrapServers.withLock { $0 = properties["bootstrap.servers"] }
        let conf = try RDKafkaConf.make(properties)
        rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(context).toOpaque())
        rd_kafka_conf_set_log_cb(conf, rdkafkaLogCallback)
        rd_kafka_conf_set_error_cb(conf, rdkafkaErrorCallback)
        if context.delivers {
            rd_kafka_conf_set_dr_msg_cb(conf, rdkafkaDeliveryCallback)
        }
        if context.consumer != nil {
            rd_kafka_conf_set_rebalance_cb(conf, rdkafkaRebalanceCallback)
        }
        if context.consumer != nil || context.delivers {
            rd_kafka_conf_set_stats_cb(conf, rdkafkaStatisticsCallback)
        }
        var errorText = [CChar](repeating: 0, count: 512)
        let type = kind == .producer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER
        guard let handle = rd_kafka_new(type, conf, &errorText, errorText.count) else {
            rd_kafka_conf_destroy(conf)
            let message = errorText.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw KafkaError(RD_KAFKA_RESP_ERR__INVALID_ARG, operation: "create \(kind.rawValue)", message: message)
        }
        self.handle = handle
        self.context = context
    }

    deinit {
        if closesConsumer.load(ordering: .acquiring) {
            rd_kafka_destroy(handle)
        } else {
            rd_kafka_destroy_flags(handle, Int32(RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE))
        }
    }

    /// Adds the bootstrap servers again (``RDKafkaRebootstrap``), after a call that found no broker.
    func rebootstrap(reason: String) {
        RDKafkaRebootstrap.addBootstrapBrokers(handle, context: context, reason: reason, level: .debug)
    }

    /// Makes `deinit` skip the consumer close (see `closesConsumer`).
    func abandonWithoutClose() {
        closesConsumer.store(false, ordering: .releasing)
    }

    /// The instance's name, e.g. `rdkafka#producer-1` (for logs).
    var name: String { String(cString: rd_kafka_name(handle)) }

    /// The fatal error raised on this instance, if any.
    func fatalError(operation: String) -> KafkaError? {
        RDKafkaFatal.check(handle, operation: operation)
    }

    /// Serves queued callbacks (delivery reports, errors, statistics) for up to `timeoutMs`.
    @discardableResult
    func poll(timeoutMs: Int32) -> Int32 {
        rd_kafka_poll(handle, timeoutMs)
    }

    /// Messages and requests not yet acknowledged.
    var outstanding: Int32 { rd_kafka_outq_len(handle) }

    /// Fails every message still queued or in flight with a `_PURGE_*` delivery report (served by
    /// the next poll). For a producer instance that is being replaced.
    func purgeOutstanding() {
        _ = rd_kafka_purge(handle, Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT))
    }

    /// Waits up to `timeoutMs` for every outstanding message to be delivered. Blocking.
    func flush(timeoutMs: Int32) throws(KafkaError) {
        let code = rd_kafka_flush(handle, timeoutMs)
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(code, operation: "flush", message: "\(outstanding) messages still outstanding after \(timeoutMs) ms")
        }
    }
}
