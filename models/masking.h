// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "decoded.h"

#include <QByteArray>
#include <QJsonValue>
#include <QString>
#include <optional>

// The one set of masking rules: every place that shows a value (the value viewer, the sessions
// panel, and whatever shows values next) hides secrets with these, until the user reveals them.
namespace masking {

// Field or JSON key names whose values are secrets (token, csrf, password, api_key, cookie…).
bool isSecretName(const QByteArray &name);
// What a masked value shows.
QString maskText();
// A JSON document with the values of secret-named keys replaced by the mask, at any depth
// (compact output); nullopt when 'json' is not a JSON object or array.
std::optional<QByteArray> maskJson(const QByteArray &json, int *maskedCount = nullptr);
// The same on a parsed value; 'count' grows by the values masked.
QJsonValue maskJsonValue(const QJsonValue &value, int &count);
// Values up to this size are decoded (detection) to find secrets their encoding hides.
constexpr qsizetype kDecodedCheckBytes = 64 * 1024;

// A value decoded where it is shown, on the GUI thread (a table's cell, a session, a job's field,
// a Lua reply): by detection, up to kDecodedCheckBytes in and four times that out, with its tree
// and the same tree with its secrets masked. Nothing when the value is larger or no structure was
// recognised.
struct DecodedInline
{
    decode::Result result; // its tree is the value as decoded
    decode::Node masked;
    int secrets = 0; // values the masking hid
};
std::optional<DecodedInline> decodeInline(const QByteArray &value, qsizetype maxNodes = 100'000);
// What a value shows while hidden: the mask when 'fieldName' (a hash or stream field, a JSON
// key; may be null) is secret-named, JSON with its secret-named keys masked, the mask naming
// the format when the value decodes (pickle, MessagePack, base64…) to a tree with secrets, or a
// null array when there is nothing to hide.
// With 'decodeCheck' false (a caller out of time for decoding), a value detection might decode
// is masked as not checked rather than decoded.
QByteArray maskedValue(const QByteArray *fieldName, const QByteArray &value, bool decodeCheck = true);
// The same without the decoding, for a caller that decodes the value itself: the mask of a
// secret-named field, or JSON with its secret-named keys masked; null when neither hides anything.
QByteArray maskedByName(const QByteArray *fieldName, const QByteArray &value);
// A decoded value's tree (pickled sessions, MessagePack, CBOR…) with the values of its
// secret-named map entries replaced by the mask, at any depth; returns how many were masked.
int maskTree(decode::Node &tree);
// A JSON value as text: strings bare, everything else in compact JSON.
QByteArray jsonText(const QJsonValue &value);

} // namespace masking
