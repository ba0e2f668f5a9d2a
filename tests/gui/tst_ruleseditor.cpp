// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"
#include "ruleseditor.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QSaveFile>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

// The rules editor on a real file in a temporary directory: a rule typed in and saved reaches
// the file and every listener; a broken file shows its line in red while the old rules stay;
// changes on disk reach the table, or ask first when the table has unsaved edits.
namespace {
constexpr int kWaitMs = 10000;

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QSaveFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() && f.commit();
}

const QByteArray kRules
    = "{\n  \"version\": 2,\n  \"rules\": [\n"
      "    {\"glob\": \"lock:*\", \"type\": \"string\", \"kind\": \"lock\", \"params\": {\"ttl_ms\": 30000}, "
      "\"note\": \"order locks\"},\n"
      "    {\"glob\": \"rate:api:*\", \"type\": \"string\", \"kind\": \"fixed-window\", \"params\": "
      "{\"limit\": 100, \"window_ms\": 60000}},\n"
      "    {\"glob\": \"sess:*\", \"type\": \"hash\", \"kind\": \"session\"},\n"
      "    {\"glob\": \"tmp:*\", \"type\": \"any\", \"kind\": \"none\", \"note\": \"scratch\"}\n"
      "  ]\n}\n";
} // namespace

class TstRulesEditor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void addAndSave()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rules.json"));
        PatternRulesFile file(path);
        RulesEditor editor;
        editor.setFile(&file);
        editor.resize(900, 500);
        editor.show();
        QVERIFY(editor.status()->text().contains(QDir::toNativeSeparators(path)));
        QVERIFY(editor.status()->text().contains(QStringLiteral("Save creates it")));
        QSignalSpy changed(&file, &PatternRulesFile::rulesChanged);

        editor.addRule();
        PatternRulesModel *model = editor.model();
        QCOMPARE(model->rowCount(), 1);
        // The glob cell opens for typing at once.
        QTRY_VERIFY(editor.view()->indexWidget(model->index(0, PatternRulesModel::GlobColumn)));
        editor.view()->closePersistentEditor(model->index(0, PatternRulesModel::GlobColumn));
        QVERIFY(model->setData(model->index(0, PatternRulesModel::GlobColumn), QStringLiteral("rate:login:*")));
        QVERIFY(model->setData(model->index(0, PatternRulesModel::TypeColumn), QStringLiteral("string")));
        QVERIFY(model->setData(model->index(0, PatternRulesModel::KindColumn), QStringLiteral("fixed-window")));
        QVERIFY(model->setData(model->index(0, PatternRulesModel::ParamsColumn),
                               QStringLiteral("limit=5, window_ms=60000")));
        QVERIFY(editor.isModified());
        QVERIFY(editor.status()->text().contains(QStringLiteral("unsaved edits")));

        // A refused edit says why on the status line.
        QVERIFY(!model->setData(model->index(0, PatternRulesModel::ParamsColumn), QStringLiteral("limit=five")));
        QVERIFY2(editor.status()->text().contains(QStringLiteral("limit must be a number")),
                 qPrintable(editor.status()->text()));

        QVERIFY(editor.save());
        QCOMPARE(changed.size(), 1);
        QVERIFY(!editor.isModified());
        QCOMPARE(file.rules().rules(), model->rules());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY2(text.contains("{\"glob\": \"rate:login:*\", \"type\": \"string\", \"kind\": \"fixed-window\", "
                               "\"params\": {\"limit\": 5, \"window_ms\": 60000}}"),
                 text.constData());
        QVERIFY(editor.status()->text().contains(QStringLiteral("Saved 1 rule")));
        QVERIFY(editor.status()->text().contains(QStringLiteral("1 rule in use")));
        QVERIFY(editor.changedNotice()->isHidden());
    }

    void kindAndTypeFromLists()
    {
        QTemporaryDir dir;
        PatternRulesFile file(dir.filePath(QStringLiteral("rules.json")));
        RulesEditor editor;
        editor.setFile(&file);
        editor.resize(900, 500);
        editor.show();
        editor.addRule();
        QTableView *view = editor.view();
        // addRule() opened the glob for typing; leave it first.
        QWidget *globEditor = view->indexWidget(editor.model()->index(0, PatternRulesModel::GlobColumn));
        QVERIFY(globEditor);
        Q_EMIT view->itemDelegate()->closeEditor(globEditor);
        const auto pick = [view](const QModelIndex &index, const QString &id) -> int {
            view->edit(index);
            auto *box = qobject_cast<QComboBox *>(view->indexWidget(index));
            if (!box)
                return -1;
            box->setCurrentIndex(box->findData(id));
            Q_EMIT view->itemDelegate()->commitData(box);
            Q_EMIT view->itemDelegate()->closeEditor(box);
            return box->count();
        };
        // Every kind, and "decode only".
        QCOMPARE(pick(editor.model()->index(0, PatternRulesModel::KindColumn), QStringLiteral("token-bucket")),
                 kPatternKindCount + 1);
        QCOMPARE(editor.model()->rules().at(0).kind, PatternKind::TokenBucket);
        QCOMPARE(pick(editor.model()->index(0, PatternRulesModel::TypeColumn), QStringLiteral("zset")),
                 int(patternRuleTypes().size()));
        QCOMPARE(editor.model()->rules().at(0).type, KeyType::ZSet);

        // Decode steps typed into their column; then the rule can decode without a kind.
        const QModelIndex steps = editor.model()->index(0, PatternRulesModel::DecodeColumn);
        view->edit(steps);
        auto *line = qobject_cast<QLineEdit *>(view->indexWidget(steps));
        QVERIFY(line);
        line->setText(QStringLiteral("base64, zstd, msgpack"));
        Q_EMIT view->itemDelegate()->commitData(line);
        Q_EMIT view->itemDelegate()->closeEditor(line);
        QCOMPARE(editor.model()->rules().at(0).decode,
                 (QList<decode::Format>{decode::Format::Base64, decode::Format::Zstd, decode::Format::MsgPack}));
        pick(editor.model()->index(0, PatternRulesModel::KindColumn),
             QString::fromLatin1(PatternRulesModel::kDecodeOnly));
        QVERIFY(!editor.model()->rules().at(0).classifies);
        QCOMPARE(editor.model()->index(0, PatternRulesModel::KindColumn).data().toString(),
                 QStringLiteral("any (decode only)"));
    }

    void brokenFileOnDisk()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rules.json"));
        QVERIFY(writeFile(path, kRules));
        PatternRulesFile file(path);
        RulesEditor editor;
        editor.setFile(&file);
        QCOMPARE(editor.model()->rowCount(), 4);
        QSignalSpy failed(&file, &PatternRulesFile::loadFailed);
        QByteArray broken = kRules;
        broken.replace("\"kind\": \"session\"", "\"kind\": \"sesion\"");
        QVERIFY(writeFile(path, broken));
        QVERIFY(failed.wait(kWaitMs));
        const QString status = editor.status()->text();
        QVERIFY2(status.contains(QStringLiteral("line 6: unknown kind &quot;sesion&quot;")), qPrintable(status));
        QVERIFY2(status.contains(chartstyle::bad(editor.palette()).name()), qPrintable(status)); // in red
        QVERIFY2(status.contains(QStringLiteral("previous 4 rules are still in use")), qPrintable(status));
        QCOMPARE(editor.model()->rowCount(), 4); // the rules in use stay on show
        QCOMPARE(file.rules().rules().size(), 4);
        // Saving over the broken file is refused; it is someone's edit in progress.
        editor.addRule();
        QVERIFY(!editor.save());
        QVERIFY2(editor.status()->text().contains(QStringLiteral("Not saved")), qPrintable(editor.status()->text()));
        editor.reload();
        QCOMPARE(editor.model()->rowCount(), 4);

        // Fixed on disk: the error goes.
        QSignalSpy changed(&file, &PatternRulesFile::rulesChanged);
        QVERIFY(writeFile(path, kRules));
        QVERIFY(changed.wait(kWaitMs));
        QVERIFY2(!editor.status()->text().contains(QStringLiteral("line 6")), qPrintable(editor.status()->text()));
    }

    void followsDiskUnlessEdited()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rules.json"));
        QVERIFY(writeFile(path, kRules));
        PatternRulesFile file(path);
        RulesEditor editor;
        editor.setFile(&file);
        QSignalSpy changed(&file, &PatternRulesFile::rulesChanged);

        // No edits: the table simply follows the file.
        QVERIFY(writeFile(path, R"({"version": 2, "rules": [{"glob": "a:*", "kind": "cache"}]})"));
        QVERIFY(changed.wait(kWaitMs));
        QCOMPARE(editor.model()->rowCount(), 1);
        QVERIFY(editor.changedNotice()->isHidden());

        // Unsaved edits: the table stays, and a notice offers the file's version.
        editor.addRule();
        QVERIFY(writeFile(path, R"({"version": 2, "rules": [{"glob": "b:*", "kind": "lock"}]})"));
        QVERIFY(changed.wait(kWaitMs));
        QCOMPARE(editor.model()->rowCount(), 2);
        QVERIFY(!editor.changedNotice()->isHidden());
        editor.keepMine();
        QVERIFY(editor.changedNotice()->isHidden());
        QVERIFY(editor.isModified());
        QCOMPARE(editor.model()->rowCount(), 2);

        QVERIFY(writeFile(path, R"({"version": 2, "rules": [{"glob": "c:*", "kind": "hll"}]})"));
        QVERIFY(changed.wait(kWaitMs));
        QVERIFY(!editor.changedNotice()->isHidden());
        editor.reload();
        QVERIFY(editor.changedNotice()->isHidden());
        QVERIFY(!editor.isModified());
        QCOMPARE(editor.model()->rowCount(), 1);
        QCOMPARE(editor.model()->rules().at(0).kind, PatternKind::HyperLogLog);
    }

    void screenshot()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rules.json"));
        QVERIFY(writeFile(path, kRules));
        PatternRulesFile file(path);
        RulesEditor editor;
        editor.setFile(&file);
        editor.resize(960, 460);
        editor.show();
        QSignalSpy failed(&file, &PatternRulesFile::loadFailed);
        QByteArray broken = kRules;
        broken.replace("\"kind\": \"session\"", "\"kind\": \"sesion\"");
        QVERIFY(writeFile(path, broken));
        QVERIFY(failed.wait(kWaitMs));
        editor.view()->selectRow(1);
        // The status grew a line: let the layout give it the room before the picture.
        QTRY_VERIFY(editor.status()->height() >= editor.status()->heightForWidth(editor.status()->width()));
        const QImage image = editor.grab().toImage();
        QVERIFY(!image.isNull());
        const QString out = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
        if (!out.isEmpty())
            QVERIFY(image.save(QDir(out).filePath(QStringLiteral("rules.png"))));

        // And with unsaved edits when the file changes again: the notice bar.
        editor.addRule();
        editor.view()->closePersistentEditor(editor.model()->index(4, PatternRulesModel::GlobColumn));
        QSignalSpy changed(&file, &PatternRulesFile::rulesChanged);
        QByteArray fixed = kRules;
        fixed.replace("\"limit\": 100", "\"limit\": 250"); // fixed, and one more change
        QVERIFY(writeFile(path, fixed));
        QVERIFY(changed.wait(kWaitMs));
        QVERIFY(!editor.changedNotice()->isHidden());
        QTRY_VERIFY(editor.changedNotice()->height() > 0 && editor.changedNotice()->isVisible());
        if (!out.isEmpty())
            QVERIFY(editor.grab().save(QDir(out).filePath(QStringLiteral("rules-notice.png"))));
    }
};

QTEST_MAIN(TstRulesEditor)
#include "tst_ruleseditor.moc"
