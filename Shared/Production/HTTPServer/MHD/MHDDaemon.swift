import CMicroHTTPD
import Runtime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one owner of a running `MHD_Daemon` and its listening socket.
///
/// `@unchecked Sendable`: the daemon pointer is only touched by `quiesce()` and `stop()`, which
/// `HTTPServer` calls from the one thread that removed this object from its locked state; `deinit`
/// runs after that thread drops the last reference.
final class MHDDaemon: @unchecked Sendable {
    private var daemon: OpaquePointer?
    /// Set once `MHD_quiesce_daemon` gave the listening socket back (and it was closed).
    private var quiesced = false
    /// Kept alive while the daemon can call back into it (passed unretained as `cls`).
    let core: ServerCore

    /// Starts libmicrohttpd on the already listening socket `fd` (which it then owns).
    init(core: ServerCore, listeningSocket fd: Int32, host: String, port: UInt16) throws(HTTPServerError) {
        self.core = core
        let configuration = core.configuration
        // poll(2), not epoll: MHD_quiesce_daemon (the graceful stop's first step) on an epoll daemon with its own
        // threads races the workers' own removal of the listening socket from their epoll sets, and
        // libmicrohttpd then aborts the whole process ("Failed to remove listen FD from epoll set", an open
        // libmicrohttpd defect; it killed a CI test run). On poll the quiesce is a flag and a wake-up.
        let flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_POLL.rawValue)
            | UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue) | UInt32(MHD_USE_ERROR_LOG.rawValue)
        let cls = Unmanaged.passUnretained(core).toOpaque()
        let clsArgument = OpaquePointer(cls)
        let timeoutSeconds = max(1, configuration.connectionTimeout.components.seconds)
        func function<F>(_ pointer: F) -> OpaquePointer { unsafeBitCast(pointer, to: OpaquePointer.self) }
        let arguments: [any CVarArg] = [
            // The logger must come first so that option-parsing messages reach it too.
            MHD_OPTION.EXTERNAL_LOGGER.rawValue, function(MHDCallbacks.log), clsArgument,
            MHD_OPTION.LISTEN_SOCKET.rawValue, fd,
            MHD_OPTION.THREAD_POOL_SIZE.rawValue, UInt32(clamping: max(1, configuration.threadCount)),
            MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(clamping: max(1, configuration.connectionLimit)),
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(clamping: timeoutSeconds),
            MHD_OPTION.URI_LOG_CALLBACK.rawValue, function(MHDCallbacks.uriLog), clsArgument,
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, function(MHDCallbacks.notifyCompleted), clsArgument,
            MHD_OPTION.END.rawValue,
        ]
        let started = withVaList(arguments) { list in
            MHD_start_daemon_va(flags, 0, nil, nil, MHDCallbacks.access, cls, list)
        }
        guard let started else {
            // libmicrohttpd may or may not have closed `fd` on this path; leaking one descriptor on a
            // failed start is safer than a double close.
            let reason = core.lastDaemonMessage.withLock { $0 } ?? "MHD_start_daemon failed"
            throw HTTPServerError(kind: .daemonStartFailed, host: host, port: port, reason: reason)
        }
        daemon = started
    }

    /// Stops accepting new connections and closes the listening socket at once (a connection
    /// attempt is refused instead of waiting unanswered in the backlog until the drain is over);
    /// existing connections keep being served.
    func quiesce() {
        guard let daemon, !quiesced else { return }
        let socket = MHD_quiesce_daemon(daemon)
        if socket >= 0 { close(socket) }
        quiesced = true
    }

    /// Stops the daemon (joining its threads) and closes the socket. Every suspended connection must have
    /// been resumed before (see `ServerCore.closeGate`).
    func stop() {
        guard let daemon else { return }
        self.daemon = nil
        MHD_stop_daemon(daemon)
    }

    deinit {
        stop()
    }
}
