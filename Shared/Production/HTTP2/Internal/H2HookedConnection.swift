import Reactor
import CNghttp2

/// What a connection driven by `H2HookedConnection` does with nghttp2's events: the hooks of
/// `H2Connection`, for a role defined outside this module (the harness's HTTP/2 server). Called on the
/// connection's loop thread.
package protocol H2ConnectionHooks: AnyObject {
    /// Creates the nghttp2 session (client or server) with the shared callbacks.
    func makeSession(callbacks: OpaquePointer, userData: UnsafeMutableRawPointer) -> OpaquePointer?
    /// The session exists; submit SETTINGS here.
    func sessionStarted()
    /// The connection is gone.
    func connectionClosed(reason: String)
    func onBeginHeaders(streamID: Int32)
    func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)
    func onData(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>)
    func onFrame(_ frame: UnsafePointer<nghttp2_frame>)
    func onStreamClose(streamID: Int32, errorCode: UInt32)
    /// Copies up to `length` body bytes of `streamID`; sets EOF in `flags` at the end.
    func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int
}

/// An `H2Connection` whose role is given by a hooks object instead of a subclass, so a module of the
/// same package can use the connection core without it being public or open. `hooks` is weak: its owner
/// keeps the hooks (and through them this connection) alive; a connection without hooks does nothing.
package final class H2HookedConnection: H2Connection {
    package weak var hooks: H2ConnectionHooks?

    package init(loop: EventLoop, fd: Int32, tls: TLSStream) {
        super.init(loop: loop, fd: fd, tls: tls, connecting: false)
    }

    override func makeSession(callbacks: OpaquePointer, userData: UnsafeMutableRawPointer) -> OpaquePointer? {
        hooks?.makeSession(callbacks: callbacks, userData: userData)
    }

    override func sessionStarted() { hooks?.sessionStarted() }
    override func connectionClosed(reason: String) { hooks?.connectionClosed(reason: reason) }
    override func onBeginHeaders(streamID: Int32) { hooks?.onBeginHeaders(streamID: streamID) }

    override func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        hooks?.onHeader(streamID: streamID, name: name, value: value)
    }

    override func onData(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) { hooks?.onData(streamID: streamID, bytes: bytes) }
    override func onFrame(_ frame: UnsafePointer<nghttp2_frame>) { hooks?.onFrame(frame) }
    override func onStreamClose(streamID: Int32, errorCode: UInt32) { hooks?.onStreamClose(streamID: streamID, errorCode: errorCode) }

    override func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let hooks else { return super.readBody(streamID: streamID, into: buffer, length: length, flags: flags) }
        return hooks.readBody(streamID: streamID, into: buffer, length: length, flags: flags)
    }
}
