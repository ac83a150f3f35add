import CRdKafka

extension RDKafkaClient {
    /// Enqueues one message with `rd_kafka_produceva` (payload, key and headers copied).
    ///
    /// On success librdkafka owns `handler` until the delivery report; on failure the handler is
    /// released here, never called, and the error is returned. Never blocks.
    func enqueue(_ message: KafkaOutgoingMessage, handler: RDKafkaDeliveryHandler) -> KafkaError? {
        let headers = Self.makeHeaders(message.headers)
        let opaque = Unmanaged.passRetained(handler).toOpaque()
        let failure: OpaquePointer? = message.topic.withCString { topic in
            Self.withBytes(message.key) { key in
                Self.withBytes(message.value) { value in
                    var arguments: [rd_kafka_vu_t] = []
                    var argument = rd_kafka_vu_t()
                    argument.vtype = RD_KAFKA_VTYPE_TOPIC
                    argument.u.cstr = topic
                    arguments.append(argument)
                    argument = rd_kafka_vu_t()
                    argument.vtype = RD_KAFKA_VTYPE_MSGFLAGS
                    argument.u.i = RD_KAFKA_MSG_F_COPY
                    arguments.append(argument)
                    if let partition = message.partition {
                        argument = rd_kafka_vu_t()
                        argument.vtype = RD_KAFKA_VTYPE_PARTITION
                        argument.u.i32 = partition
                        arguments.append(argument)
                    }
                    if let key {
                        argument = rd_kafka_vu_t()
                        argument.vtype = RD_KAFKA_VTYPE_KEY
                        argument.u.mem.ptr = UnsafeMutableRawPointer(mutating: key.baseAddress)
                        argument.u.mem.size = key.count
                        arguments.append(argument)
                    }
                    if let value {
                        argument = rd_kafka_vu_t()
                        argument.vtype = RD_KAFKA_VTYPE_VALUE
                        argument.u.mem.ptr = UnsafeMutableRawPointer(mutating: value.baseAddress)
                        argument.u.mem.size = value.count
                        arguments.append(argument)
                    }
                    if let headers {
                        argument = rd_kafka_vu_t()
                        argument.vtype = RD_KAFKA_VTYPE_HEADERS
                        argument.u.headers = headers
                        arguments.append(argument)
                    }
                    argument = rd_kafka_vu_t()
                    argument.vtype = RD_KAFKA_VTYPE_OPAQUE
                    argument.u.ptr = opaque
                    arguments.append(argument)
                    return rd_kafka_produceva(handle, arguments, arguments.count)
                }
            }
        }
        guard let failure else { return nil }
        // Refused: nothing was enqueued, so the headers and the handler are still ours.
        if let headers { rd_kafka_headers_destroy(headers) }
        Unmanaged<RDKafkaDeliveryHandler>.fromOpaque(opaque).release()
        return KafkaError(consuming: failure, operation: "produce to \(message.topic)")
    }

    /// A new `rd_kafka_headers_t` with copies of `headers`, or nil when there are none.
    private static func makeHeaders(_ headers: [KafkaHeader]) -> OpaquePointer? {
        guard !headers.isEmpty else { return nil }
        let list = rd_kafka_headers_new(headers.count)!
        for header in headers {
            withBytes(header.value) { value in
                _ = rd_kafka_header_add(list, header.key, -1, value?.baseAddress, value?.count ?? 0)
            }
        }
        return list
    }

    /// Calls `body` with the bytes, nil for nil; an empty array gets a valid non-null pointer so
    /// that librdkafka sees an empty (not a null) key or value.
    private static func withBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let bytes else { return body(nil) }
        if bytes.isEmpty {
            return withUnsafeBytes(of: UInt8(0)) { body(UnsafeRawBufferPointer(start: $0.baseAddress, count: 0)) }
        }
        return bytes.withUnsafeBytes { body($0) }
    }
}
