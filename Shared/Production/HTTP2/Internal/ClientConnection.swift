import Reactor
import CNghttp2

/// One client HTTP/2 connection of a `ClientPool`: submits requests as streams within the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS, collects responses, handles GOAWAY, REFUSED_STREAM and PING.
final class ClientConnection: H2Connection {
    private weak var pool: ClientPool?
    private let configuration: HTTP2ClientConfiguration
    private var streams: [Int32: PendingRequest] = [:]
    private(set) var ready = false
    private(set) var draining = false
    private var goAwayLastStreamID: Int32 = Int32.max
    let createdAt = EventLoop.monotonicNanoseconds()
    private var lastActivity = EventLoop.monotonicNanoseconds()
    private var pingSentAt: UInt64?

    init(pool: ClientPool, loop: EventLoop, fd: Int32, tls: TLSStream, configuration: HTTP2ClientConfiguration) {
        self.pool = pool
        self.configuration = configuration
        super.init(loop: loop, fd: fd, tls: tls, connecting: true)
    }

    var activeStreams: Int { streams.count }

    /// Streams that may still be opened now.
    var capacity: Int {
        guard ready, !draining, state == .open, let session else { return 0 }
        let remote = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return min(remote, configuration.maxStreamsPerConnection) - streams.count
    }

    /// Still usable for new work, or about to be.
    var isLive: Bool { state != .closed && !draining }

    override func makeSession(callbacks: OpaquePointer, userData: UnsafeMutableRawPointer) -> OpaquePointer? {
        var session: OpaquePointer?
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // Until the server's SETTINGS arrive we send nothing anyway; keep nghttp2's own guess at 1.
        nghttp2_option_set_peer_max_concurrent_streams(option, 1)
        guard nghttp2_session_client_new2(&session, callbacks, userData, option) == 0 else { return nil }
        return session
    }

    override func sessionStarted() {
        guard let session else { return }
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: UInt32(1 << 20)),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, configuration.receiveWindow)
    }

    /// Opens a stream for `item`; on a local failure hands it back to the pool.
    func submit(_ item: PendingRequest, statistics: HTTP2ClientStatistics) {
        guard let session, state == .open else {
            pool?.requeue(item, .local)
            return
        }
        let request = item.request
        item.resetStream()
        headerList.reset()
        headerList.add(":method", request.method)
        headerList.add(":scheme", "https")
        headerList.add(":authority", configuration.authority)
        headerList.add(":path", request.path, sensitive: true)
        for header in request.headers { headerList.add(header.name, header.value, sensitive: header.sensitive) }
        let streamID: Int32 = headerList.withList { list, count in
            if request.body.isEmpty {
                return nghttp2_submit_request(session, nil, list, count, nil, nil)
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: h2ReadBody)
            return nghttp2_submit_request(session, nil, list, count, &provider, nil)
        }
        if streamID < 0 {
            if streamID == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue {
                draining = true
                pool?.requeue(item, .local)
            } else {
                item.fail(.protocolError(code: streamID, message: String(cString: nghttp2_strerror(streamID))))
            }
            return
        }
        streams[streamID] = item
        statistics.notePeak(streams.count)
        loop.markDirty(self)
    }

    /// Fails streams past their deadline, sends PINGs on idle connections, closes dead ones.
    func tick(now: UInt64, statistics: HTTP2ClientStatistics) {
        guard state != .closed else { return }
        if !ready {
            if now &- createdAt > configuration.connectTimeout.nanoseconds { close(reason: "connect timeout") }
            return
        }
        if let sent = pingSentAt, now &- sent > configuration.pingTimeout.nanoseconds {
            close(reason: "PING not acknowledged")
            return
        }
        if pingSentAt == nil, streams.isEmpty, now &- lastActivity > configuration.pingInterval.nanoseconds, let session {
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
            pingSentAt = now
            statistics.pings.add(1, ordering: .relaxed)
            loop.markDirty(self)
        }
        guard let session else { return }
        for (id, item) in streams where item.deadline <= now && !item.completed {
            item.fail(.timeout(seconds: configuration.requestTimeout.seconds))
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
            loop.markDirty(self)
        }
    }

    // MARK: - nghttp2 events

    override func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        if name.count == 7, name.elementsEqual(":status".utf8) {
            var status = 0
            for digit in value where digit >= 48 && digit <= 57 { status = status * 10 + Int(digit - 48) }
            stream.status = status
        } else {
            stream.responseHeaders.append(HTTP2Header(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
    }

    override func onData(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID], !stream.responseTooLarge else { return }
        guard stream.responseBody.count + bytes.count <= configuration.maxResponseBodyBytes else {
            // Fail now and stop the stream: nothing more of it is read (a timeout meanwhile would read as retryable).
            stream.responseTooLarge = true
            stream.responseBody = []
            stream.fail(.responseTooLarge(limit: configuration.maxResponseBodyBytes))
            if let session { nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue) }
            loop.markDirty(self)
            return
        }
        stream.responseBody.append(contentsOf: bytes)
    }

    override func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[streamID] else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let body = stream.request.body
        let count = min(length, body.count - stream.bodyOffset)
        body.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + stream.bodyOffset, count: count)
        }
        stream.bodyOffset += count
        if stream.bodyOffset >= body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    override func onFrame(_ frame: UnsafePointer<nghttp2_frame>) {
        lastActivity = EventLoop.monotonicNanoseconds()
        let header = frame.pointee.hd
        switch UInt32(header.type) {
        case NGHTTP2_SETTINGS.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            if !ready {
                ready = true
                pool?.connectionReady(self)
            }
            pool.map { loop.markDirty($0) }  // the stream limit may have changed
        case NGHTTP2_GOAWAY.rawValue:
            draining = true
            goAwayLastStreamID = frame.pointee.goaway.last_stream_id
            pool?.connectionDraining(self)
        case NGHTTP2_PING.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            pingSentAt = nil
        default:
            break
        }
    }

    override func onStreamClose(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        if let pool { loop.markDirty(pool) }
        if stream.completed { return }
        if errorCode == NGHTTP2_NO_ERROR.rawValue && stream.status != 0 {
            stream.succeed(HTTP2Response(status: stream.status, headers: stream.responseHeaders, body: stream.responseBody))
        } else if streamID > goAwayLastStreamID {
            pool?.requeue(stream, .goAway)
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            pool?.requeue(stream, .refusedStream)
        } else {
            stream.fail(.streamReset(code: errorCode))
        }
    }

    override func connectionClosed(reason: String) {
        let open = streams
        streams.removeAll()
        for (id, stream) in open.sorted(by: { $0.key < $1.key }) where !stream.completed {
            if id > goAwayLastStreamID {
                pool?.requeue(stream, .goAway)
            } else {
                stream.fail(.connectionLost(message: reason))
            }
        }
        pool?.connectionClosed(self, wasReady: ready, reason: reason)
    }
}
