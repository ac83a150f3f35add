import Reactor
import CNghttp2
import HTTP2

/// One accepted HTTP/2 connection: collects each stream's request, calls the handler, writes the
/// response (now or after the handler's delay), sends GOAWAY after the configured stream count.
/// The hooks of an `H2HookedConnection` (the package's connection core), which it owns; its loop's
/// registry owns it until the connection closes. Confined to the loop's thread.
final class ServerConnection: H2ConnectionHooks {
    private final class Stream {
        var method = ""
        var path = ""
        var authority = ""
        var headers: [HTTP2Header] = []
        var body: [UInt8] = []
        var truncated = false
        var response: [UInt8] = []
        var responseOffset = 0
    }

    let id: Int
    private let connection: H2HookedConnection
    private var loop: EventLoop { connection.loop }
    private var session: OpaquePointer? { connection.session }
    private let shared: ServerShared
    private weak var registry: ServerLoopRegistry?
    private var streams: [Int32: Stream] = [:]
    private var streamsOpened = 0
    private var goAwayLastStreamID: Int32?

    init(id: Int, loop: EventLoop, fd: Int32, tls: TLSStream, shared: ServerShared, registry: ServerLoopRegistry) {
        self.id = id
        self.shared = shared
        self.registry = registry
        self.connection = H2HookedConnection(loop: loop, fd: fd, tls: tls)
        connection.hooks = self
    }

    /// Registers the connection with its loop (the TLS handshake starts when the client speaks).
    func attach() { connection.attach() }

    /// Closes the connection (now, or right after the current nghttp2 call).
    func close(reason: String) { connection.close(reason: reason) }

    func makeSession(callbacks: OpaquePointer, userData: UnsafeMutableRawPointer) -> OpaquePointer? {
        var session: OpaquePointer?
        guard nghttp2_session_server_new(&session, callbacks, userData) == 0 else { return nil }
        return session
    }

    func sessionStarted() {
        submitSettings(maxConcurrentStreams: shared.maxConcurrentStreams.load(ordering: .relaxed))
        if let session {
            nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 1 << 24)
        }
    }

    /// Announces a (new) stream limit.
    func submitSettings(maxConcurrentStreams: Int) {
        guard let session else { return }
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: UInt32(maxConcurrentStreams)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: UInt32(1 << 20)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE.rawValue), value: 4096),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: 8000),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        loop.markDirty(connection)
    }

    func onBeginHeaders(streamID: Int32) {
        guard let session else { return }
        if let last = goAwayLastStreamID, streamID > last {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_REFUSED_STREAM.rawValue)
            return
        }
        streams[streamID] = Stream()
        streamsOpened += 1
        shared.noteStreamOpened(active: streams.count)
        let limit = shared.goAwayAfterStreams.load(ordering: .relaxed)
        if limit > 0, streamsOpened >= limit, goAwayLastStreamID == nil {
            goAwayLastStreamID = streamID
            shared.goAwaysSent.add(1, ordering: .relaxed)
            let debug = Array(#"{"reason":"Shutdown"}"#.utf8)
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_NO_ERROR.rawValue, debug, debug.count)
        }
    }

    func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        let text = String(decoding: value, as: UTF8.self)
        if name.first == UInt8(ascii: ":") {
            switch String(decoding: name, as: UTF8.self) {
            case ":method": stream.method = text
            case ":path": stream.path = text
            case ":authority": stream.authority = text
            default: break
            }
        } else {
            stream.headers.append(HTTP2Header(String(decoding: name, as: UTF8.self), text))
        }
    }

    func onData(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        let room = shared.maxBodySize - stream.body.count
        if bytes.count > room {
            stream.truncated = true
            if room > 0 { stream.body.append(contentsOf: bytes.prefix(room)) }
        } else {
            stream.body.append(contentsOf: bytes)
        }
    }

    func onFrame(_ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        let type = UInt32(header.type)
        guard type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue,
              header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
              let stream = streams[header.stream_id] else { return }
        let request = HTTP2ServerRequest(
            method: stream.method, path: stream.path, authority: stream.authority, headers: stream.headers,
            body: stream.body, bodyTruncated: stream.truncated, connectionID: id, streamID: header.stream_id)
        stream.body = []
        let response = shared.handler(request)
        if let delay = response.delay, delay > .zero {
            let streamID = header.stream_id
            loop.schedule(afterNanoseconds: delay.nanoseconds) { [weak self] in
                self?.respond(streamID: streamID, response)
            }
        } else {
            respond(streamID: header.stream_id, response)
        }
    }

    private func respond(streamID: Int32, _ response: HTTP2ServerResponse) {
        guard let session, connection.state == .open, let stream = streams[streamID] else { return }
        let headerList = connection.headerList
        headerList.reset()
        headerList.add(":status", String(response.status))
        for header in response.headers { headerList.add(header.name, header.value, sensitive: header.sensitive) }
        stream.response = response.body
        let result: Int32 = headerList.withList { list, count in
            if response.body.isEmpty {
                return nghttp2_submit_response(session, streamID, list, count, nil)
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: h2ReadBody)
            return nghttp2_submit_response(session, streamID, list, count, &provider)
        }
        if result != 0 {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_INTERNAL_ERROR.rawValue)
        }
        loop.markDirty(connection)
    }

    func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[streamID] else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let count = min(length, stream.response.count - stream.responseOffset)
        stream.response.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + stream.responseOffset, count: count)
        }
        stream.responseOffset += count
        if stream.responseOffset >= stream.response.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    func onStreamClose(streamID: Int32, errorCode: UInt32) {
        streams[streamID] = nil
    }

    func connectionClosed(reason: String) {
        streams.removeAll()
        registry?.remove(self)
    }
}
