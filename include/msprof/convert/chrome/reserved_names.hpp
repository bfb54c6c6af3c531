// SPDX-License-Identifier: MIT
// Event names the DevTools trace engine treats specially; the chrome form
// writes such names with U+200B appended.
#ifndef MSPROF_CONVERT_CHROME_RESERVED_NAMES_HPP
#define MSPROF_CONVERT_CHROME_RESERVED_NAMES_HPP

#include <string_view>

#include "../../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

/// Event names DevTools' trace engine handles specially (its Types.Events.Name
/// values of @paulirish/trace_engine 0.0.65 plus the metadata names), sorted.
/// A slice, counter or flow with one of these names makes DevTools read
/// Chrome-specific args or treat the trace as a browser recording: the whole
/// trace then fails to load or shows nothing (tests/js/selftest.mjs). Such
/// events are written with U+200B (zero-width space) appended, which looks
/// the same. test_chrome checks that this list covers the engine's.
inline constexpr std::string_view reserved_names[] = {
    "AbortPostTaskCallback", "ActivateLayerTree", "Animation", "AnimationFrame",
    "AnimationFrame::Presentation", "AsyncTask", "BeginCommitCompositorFrame", "BeginFrame",
    "BeginMainThreadFrame", "BeginRemoteFontLoad", "BlinkGC.AtomicPhase", "CancelAnimationFrame",
    "CancelIdleCallback", "Commit", "CommitLoad", "CompositeLayers", "ComputeIntersections", "ConsoleTime",
    "CppGC.IncrementalSweep", "CpuProfile", "CpuProfiler::StartProfiling", "Decode Image",
    "Decode LazyPixelRef", "DoDecrypt", "DoDecryptReply", "DoDigest", "DoDigestReply", "DoEncrypt",
    "DoEncryptReply", "DoSign", "DoSignReply", "DoVerify", "DoVerifyReply", "Draw LazyPixelRef", "DrawFrame",
    "DroppedFrame", "EmbedderCallback", "EvaluateScript", "EventDispatch", "EventTiming", "FireAnimationFrame",
    "FireIdleCallback", "FrameStartedLoading", "FunctionCall", "GCEvent", "GPUTask", "HandlePostMessage",
    "HitTest", "ImageDecodeTask", "ImageUploadTask", "InputHandlerProxy::HandleGestureFling::started",
    "InputLatency::MouseMove", "InputLatency::MouseWheel", "InteractiveTime", "InvalidateLayout", "JSSample",
    "JitCodeAdded", "JitCodeMoved", "Layerize", "Layout", "LayoutImageUnsized", "LayoutInvalidationTracking",
    "LayoutShift", "LazyPixelRef", "LinkPreconnect", "MajorGC", "MarkDOMContent", "MarkLoad",
    "MetaCharsetCheck", "MinorGC", "NeedsBeginFrameChanged", "Paint", "PaintImage", "PaintSetup",
    "ParseAuthorStyleSheet", "ParseHTML", "ParseMetaViewport", "PipelineReporter", "PrePaint",
    "PreloadRenderBlockingStatusChange", "Profile", "ProfileCall", "ProfileChunk", "Program", "RasterTask",
    "Rasterize", "RemoteFontLoaded", "RenderFrameImpl::createChildFrame", "RequestAnimationFrame",
    "RequestIdleCallback", "RequestMainThreadFrame", "ResourceFinish", "ResourceMarkAsCached",
    "ResourceReceiveResponse", "ResourceReceivedData", "ResourceSendRequest", "ResourceWillSendRequest",
    "RunMicrotasks", "RunPostTaskCallback", "RunTask", "SchedulePostMessage", "SchedulePostTaskCallback",
    "ScheduleStyleInvalidationTracking", "ScheduleStyleRecalculation", "Screenshot", "ScrollLayer",
    "SelectorStats", "SetLayerTreeId", "SoftNavigationStart", "StyleInvalidatorInvalidationTracking",
    "StyleRecalcInvalidationTracking", "SyntheticLayoutShift", "SyntheticLayoutShiftCluster",
    "SyntheticNetworkRequest", "TimeStamp", "TimerFire", "TimerInstall", "TimerRemove",
    "TracingSessionIdForWorker", "TracingStartedInBrowser", "TracingStartedInPage", "UpdateCounters",
    "UpdateLayer", "UpdateLayerTree", "UpdateLayoutTree", "UserTiming", "UserTiming::Measure",
    "V8.CompileCode", "V8.CompileModule", "V8.CompileScript", "V8.Execute", "V8.FinalizeDeserialization",
    "V8.OptimizeCode", "V8Console::runTask", "V8Sample", "WebSocketCreate", "WebSocketDestroy",
    "WebSocketReceive", "WebSocketReceiveHandshakeResponse", "WebSocketSend", "WebSocketSendHandshakeRequest",
    "XHRLoad", "XHRReadyStateChange", "cc::DisplayItemList", "cc::LayerTreeHostImpl", "cc::Picture",
    "domLoading", "firstContentfulPaint", "firstPaint", "largestContentfulPaint::Candidate",
    "largestContentfulPaint::CandidateForSoftNavigation", "largestContentfulPaint::Invalidate",
    "navigationStart", "process_labels", "process_name", "process_sort_index", "thread_name",
    "thread_sort_index", "v8.compile", "v8.deserializeOnBackground", "v8.evaluateModule",
    "v8.parseOnBackground", "v8.parseOnBackgroundParsing", "v8.parseOnBackgroundWaiting", "v8.produceCache",
    "v8.produceModuleCache", "v8.wasm.cachedModule", "v8.wasm.compiledModule", "v8.wasm.moduleCacheHit",
    "v8.wasm.moduleCacheInvalid", "v8.wasm.streamFromResponseCallback", "v8::Debugger::AsyncTaskRun",
    "v8::Debugger::AsyncTaskScheduled"
};

bool is_reserved_name(std::string_view n) noexcept;

/// Reserved, or ending in "::UMA" (the engine leaves those out of the trace bounds).
bool needs_name_suffix(std::string_view n) noexcept;

inline constexpr std::string_view zero_width_space = "\xE2\x80\x8B";

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_RESERVED_NAMES_HPP
