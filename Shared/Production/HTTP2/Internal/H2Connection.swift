import Reactor
import CNghttp2
import Glibc

/// One TLS + nghttp2 connection on an event loop: socket readiness, the TLS handshake, feeding
/// bytes to nghttp2 and writing its output in large batches. Subclasses (client, server) handle
/// the nghttp2 callbacks. Confined to its loop's thread.
package class H2Connection: EventLoopHandler, EventLoopFlushable {
    package enum State { case connecting, handshaking, open, closed }

    package let loop: EventLoop
    package let fd: Int32
    let tls: TLSStream
    package private(set) var state: State
    /// nghttp2 session; created after the handshake, deleted in `teardown`.
    package var session: OpaquePointer?
    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var writeInterest = false
    private var closeReason: String?
    private var inCallback = false
    private static let readBufferSize = 64 * 1024
    private static let writeBatchSize = 64 * 1024
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: H2Connection.readBufferSize, alignment: 16)
    /// Scratch space for outgoing header blocks.
    package let headerList = HeaderListBuilder()

    init(loop: EventLoop, fd: Int32, tls: TLSStream, connecting: Bool) {
        self.loop = loop
        self.fd = fd
        self.tls = tls
        self.state = connecting ? .connecting : .handshaking
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        readBuffer.deallocate()
    }

    /// Registers with the loop; a connecting client waits for writability.
    package func attach() {
        loop.register(fd, handler: self, writable: true)
        writeInterest = true
    }

    // MARK: - Subclass hooks

    /// Creates the nghttp2 session (client or server) with the shared callbacks.
    func makeSession(callbacks: OpaquePointer, userData: UnsafeMutableRawPointer) -> OpaquePointer? { nil }
    /// The session exists; submit SETTINGS here.
    func sessionStarted() {}
    /// The connection is gone; fail or re-queue whatever is in flight.
    func connectionClosed(reason: String) {}
    func onBeginHeaders(streamID: Int32) {}
    func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {}
    func onData(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {}
    func onFrame(_ frame: UnsafePointer<nghttp2_frame>) {}
    func onStreamClose(streamID: Int32, errorCode: UInt32) {}
    /// Copies up to `length` body bytes of `streamID`; sets EOF in `flags` at the end.
    func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        return 0
    }

    // MARK: - Events

    package func handleEvents(readable: Bool, writable: Bool, failed: Bool) {
        switch state {
        case .connecting:
            let error = Socket.pendingError(fd)
            if error != 0 || failed {
                close(reason: "connect: \(String(cString: strerror(error == 0 ? ECONNREFUSED : error)))")
                return
            }
            state = .handshaking
            continueHandshake()
        case .handshaking:
            continueHandshake()
        case .open:
            if readable || failed { readAvailable() }
            if writable { loop.markDirty(self) }
        case .closed:
            break
        }
    }

    private func continueHandshake() {
        switch tls.handshake() {
        case .done:
            guard tls.alpn == "h2" else {
                close(reason: "the server did not agree to ALPN h2")
                return
            }
            startSession()
        case .wantRead: setWriteInterest(false)
        case .wantWrite: setWriteInterest(true)
        case .closed: close(reason: "TLS handshake: peer closed" + (tls.verifyFailure.map { " (\($0))" } ?? ""))
        case .failed(let message): close(reason: "TLS handshake: \(message)" + (tls.verifyFailure.map { " (\($0))" } ?? ""))
        }
    }

    private func startSession() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        guard let callbacks else { return close(reason: "nghttp2 callbacks: out of memory") }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, h2BeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, h2Header)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, h2DataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, h2FrameRecv)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, h2StreamClose)
        session = makeSession(callbacks: callbacks, userData: Unmanaged.passUnretained(self).toOpaque())
        guard session != nil else { return close(reason: "nghttp2 session: out of memory") }
        state = .open
        setWriteInterest(false)
        sessionStarted()
        loop.markDirty(self)
        readAvailable()
    }

    private func readAvailable() {
        guard state == .open, let session else { return }
        for _ in 0..<100_000 {
            switch tls.read(into: readBuffer) {
            case .done(let count):
                inCallback = true
                let consumed = nghttp2_session_mem_recv(session, readBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
                inCallback = false
                if consumed < 0 {
                    return close(reason: "nghttp2: \(String(cString: nghttp2_strerror(Int32(consumed))))")
                }
                if closeReason != nil { return finishDeferredClose() }
            case .wantRead:
                loop.markDirty(self)
                return
            case .wantWrite:
                setWriteInterest(true)
                loop.markDirty(self)
                return
            case .closed:
                return close(reason: "peer closed the connection")
            case .failed(let message):
                return close(reason: "TLS read: \(message)")
            }
        }
        loop.markDirty(self)
    }

    /// Writes everything nghttp2 has queued, in batches of up to 64 KiB per TLS write.
    package func flushPending() {
        guard state == .open, let session else { return }
        if closeReason != nil { return finishDeferredClose() }
        while true {
            if outboundOffset >= outbound.count {
                outbound.removeAll(keepingCapacity: true)
                outboundOffset = 0
                inCallback = true
                while outbound.count < Self.writeBatchSize {
                    var data: UnsafePointer<UInt8>?
                    let count = nghttp2_session_mem_send(session, &data)
                    if count < 0 {
                        inCallback = false
                        return close(reason: "nghttp2: \(String(cString: nghttp2_strerror(Int32(count))))")
                    }
                    if count == 0 { break }
                    outbound.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
                }
                inCallback = false
                if closeReason != nil { return finishDeferredClose() }
                if outbound.isEmpty { break }
            }
            let result = outbound.withUnsafeBytes { raw in
                tls.write(UnsafeRawBufferPointer(rebasing: raw[outboundOffset...]))
            }
            switch result {
            case .done(let written):
                outboundOffset += written
            case .wantWrite:
                setWriteInterest(true)
                return
            case .wantRead:
                return
            case .closed:
                return close(reason: "peer closed the connection")
            case .failed(let message):
                return close(reason: "TLS write: \(message)")
            }
        }
        setWriteInterest(false)
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            close(reason: "session finished (GOAWAY)")
        }
    }

    private func setWriteInterest(_ wanted: Bool) {
        guard wanted != writeInterest, state != .closed else { return }
        writeInterest = wanted
        loop.setWritableInterest(fd, wanted)
    }

    /// Closes now, or right after the current nghttp2 call returns when called from a callback.
    package func close(reason: String) {
        guard state != .closed else { return }
        if inCallback {
            if closeReason == nil { closeReason = reason }
            loop.markDirty(self)
            return
        }
        teardown(reason: reason)
    }

    private func finishDeferredClose() {
        teardown(reason: closeReason ?? "closed")
    }

    private func teardown(reason: String) {
        guard state != .closed else { return }
        state = .closed
        loop.unregister(fd)
        if session != nil { tls.shutdown() }
        Glibc.close(fd)
        connectionClosed(reason: reason)
        if let session {
            nghttp2_session_del(session)
            self.session = nil
        }
    }
}

// MARK: - nghttp2 callbacks (C) → the connection object

@inline(__always)
private func connection(_ userData: UnsafeMutableRawPointer?) -> H2Connection {
    Unmanaged<H2Connection>.fromOpaque(userData!).takeUnretainedValue()
}

private func h2BeginHeaders(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    connection(userData).onBeginHeaders(streamID: frame.pointee.hd.stream_id)
    return 0
}

private func h2Header(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _ flags: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    connection(userData).onHeader(
        streamID: frame.pointee.hd.stream_id,
        name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength))
    return 0
}

private func h2DataChunk(
    _ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    connection(userData).onData(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func h2FrameRecv(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    connection(userData).onFrame(frame)
    return 0
}

private func h2StreamClose(_ session: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    connection(userData).onStreamClose(streamID: streamID, errorCode: errorCode)
    return 0
}

/// Body reader for `nghttp2_data_provider`; the connection looks up the stream's bytes.
package func h2ReadBody(
    _ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    return connection(userData).readBody(streamID: streamID, into: buffer, length: length, flags: flags)
}

/// Builds nghttp2 header lists in reusable buffers (nghttp2 copies the list while submitting, so
/// the buffers are free again right after). One per connection; loop-confined.
package final class HeaderListBuilder {
    private var bytes: [UInt8] = []
    private var entries: [(nameStart: Int, nameLength: Int, valueLength: Int, flags: UInt8)] = []
    private var list: [nghttp2_nv] = []

    init() {
        bytes.reserveCapacity(1024)
        entries.reserveCapacity(16)
        list.reserveCapacity(16)
    }

    package func reset() {
        bytes.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }

    package func add(_ name: String, _ value: String, sensitive: Bool = false) {
        let start = bytes.count
        bytes.append(contentsOf: name.utf8)
        let nameLength = bytes.count - start
        bytes.append(contentsOf: value.utf8)
        entries.append((start, nameLength, bytes.count - start - nameLength,
                        UInt8(sensitive ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue)))
    }

    /// Calls `body` with the list built since `reset()`.
    package func withList<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        if bytes.isEmpty { bytes.append(0) }
        return bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            list.removeAll(keepingCapacity: true)
            for entry in entries {
                list.append(nghttp2_nv(
                    name: base + entry.nameStart, value: base + entry.nameStart + entry.nameLength,
                    namelen: entry.nameLength, valuelen: entry.valueLength, flags: entry.flags))
            }
            return list.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }
}
