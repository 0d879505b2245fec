/*
 * The list of exported XPTI entry points, as an X-macro: X(name). The proxy
 * builds its forwarding table from it, the export test compares it with the dispatcher's
 * dynamic symbols, and libxptifw.map must name the same functions (plus nothing else).
 */
#ifndef HT_XPTI_API_LIST_H
#define HT_XPTI_API_LIST_H

#define HT_XPTI_API_LIST(X)                                                                        \
	X(xptiFrameworkInitialize)                                                                 \
	X(xptiFrameworkFinalize)                                                                   \
	X(xptiInitialize)                                                                          \
	X(xptiFinalize)                                                                            \
	X(xptiGetVersion)                                                                          \
	X(xptiTraceEnabled)                                                                        \
	X(xptiCheckTraceEnabled)                                                                   \
	X(xptiForceSetTraceEnabled)                                                                \
	X(xptiTraceTryToEnable)                                                                    \
	X(xptiReset)                                                                               \
	X(xptiGetUniqueId)                                                                         \
	X(xptiReserveUniqueId)                                                                     \
	X(xptiGetUniversalId)                                                                      \
	X(xptiSetUniversalId)                                                                      \
	X(xptiStashTuple)                                                                          \
	X(xptiGetStashedTuple)                                                                     \
	X(xptiUnstashTuple)                                                                        \
	X(xptiRegisterString)                                                                      \
	X(xptiLookupString)                                                                        \
	X(xptiRegisterObject)                                                                      \
	X(xptiLookupObject)                                                                        \
	X(xptiRegisterStream)                                                                      \
	X(xptiUnregisterStream)                                                                    \
	X(xptiRegisterUserDefinedTracePoint)                                                       \
	X(xptiRegisterUserDefinedEventType)                                                        \
	X(xptiGetEffectiveStreamDetailLevel)                                                       \
	X(xptiRegisterPayload)                                                                     \
	X(xptiMakeEvent)                                                                           \
	X(xptiFindEvent)                                                                           \
	X(xptiQueryPayload)                                                                        \
	X(xptiQueryPayloadByUID)                                                                   \
	X(xptiReleaseEvent)                                                                        \
	X(xptiLookupPayload)                                                                       \
	X(xptiLookupEvent)                                                                         \
	X(xptiCreateTracepoint)                                                                    \
	X(xptiDeleteTracepoint)                                                                    \
	X(xptiRegisterTracepointScope)                                                             \
	X(xptiGetTracepointScopeData)                                                              \
	X(xptiSetTracepointScopeData)                                                              \
	X(xptiUnsetTracepointScopeData)                                                            \
	X(xptiEnableTracepointScopeNotification)                                                   \
	X(xptiCheckTracepointScopeNotification)                                                    \
	X(xptiGetTracepointData)                                                                   \
	X(xptiRegisterCallback)                                                                    \
	X(xptiUnregisterCallback)                                                                  \
	X(xptiNotifySubscribers)                                                                   \
	X(xptiAddMetadata)                                                                         \
	X(xptiQueryMetadata)                                                                       \
	X(xptiMetadataCount)                                                                       \
	X(xptiMetadataGet)                                                                         \
	X(xptiMetadataFind)                                                                        \
	X(xptiAddMetadataU64)                                                                      \
	X(xptiAddMetadataI64)                                                                      \
	X(xptiAddMetadataF64)                                                                      \
	X(xptiAddMetadataBool)                                                                     \
	X(xptiAddMetadataString)                                                                   \
	X(xptiAddMetadataBinary)                                                                   \
	X(xptiGetDefaultStreamID)                                                                  \
	X(xptiSetDefaultStreamID)                                                                  \
	X(xptiGetDefaultEventType)                                                                 \
	X(xptiSetDefaultEventType)                                                                 \
	X(xptiGetDefaultTraceType)                                                                 \
	X(xptiSetDefaultTraceType)

#endif /* HT_XPTI_API_LIST_H */
