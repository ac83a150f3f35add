import CMicroHTTPD
import Foundation

/// The `@convention(c)` entry points libmicrohttpd calls; each recovers the `ServerCore` from `cls`
/// and the `RequestState` from `con_cls` and forwards to Swift code.
enum MHDCallbacks {
    /// `MHD_AccessHandlerCallback`.
    static let access: MHD_AccessHandlerCallback = { cls, connection, _, method, _, upload, uploadSize, conCls in
        guard let cls, let connection, let method, let uploadSize, let conCls else { return .NO }
        guard let raw = conCls.pointee else { return .NO }  // set by uriLog for every request
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        let state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()
        return core.access(
            state, connection: connection, method: String(cString: method), upload: upload, uploadSize: uploadSize)
    }

    /// `MHD_OPTION_URI_LOG_CALLBACK`: sees the raw (still percent-encoded) request target and creates the
    /// request state, retained until `notifyCompleted`.
    static let uriLog: @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?
    ) -> UnsafeMutableRawPointer? = { _, uri, _ in
        let target = uri.map { String(cString: $0) } ?? "/"
        return Unmanaged.passRetained(RequestState(target: target)).toOpaque()
    }

    /// `MHD_OPTION_NOTIFY_COMPLETED`: releases the request state.
    static let notifyCompleted: MHD_RequestCompletedCallback = { cls, _, conCls, termination in
        guard let cls, let conCls, let raw = conCls.pointee else { return }
        conCls.pointee = nil
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        let state = Unmanaged<RequestState>.fromOpaque(raw).takeRetainedValue()
        core.completed(state, termination: termination.rawValue)
    }

    /// `MHD_LogCallback`: formats libmicrohttpd's message and logs it at warning level.
    static let log: MHD_LogCallback = { cls, format, arguments in
        guard let cls, let format, let arguments else { return }
        var buffer = [CChar](repeating: 0, count: 512)
        _ = vsnprintf(&buffer, buffer.count, format, arguments)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        core.lastDaemonMessage.withLock { $0 = text }
        core.logger.warning("libmicrohttpd: \(text)")
    }
}
