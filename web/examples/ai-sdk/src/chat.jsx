// The chat view of both variants: messages, Edit on the user's, Reload on
// the assistant's, a composer; `picker(id)` (‹ n/m ›) is the app's to give.
import { useState } from "react";

const text = (m) => m.parts.filter((p) => p.type === "text").map((p) => p.text).join("");

function Editing({ message, onSave, onCancel }) {
  const [value, setValue] = useState(text(message));
  return (
    <form className="msg editing" onSubmit={(e) => { e.preventDefault(); onSave(value); }}>
      <textarea className="input" value={value} onChange={(e) => setValue(e.target.value)} />
      <button type="button" className="cancel" onClick={onCancel}>Cancel</button>
      <button type="submit" className="save">Save</button>
    </form>
  );
}

export function ChatView({ messages, status, sendMessage, regenerate, picker }) {
  const [input, setInput] = useState("");
  const [editing, setEditing] = useState(null);
  const busy = status === "submitted" || status === "streaming";
  return (
    <div className="thread">
      <div className="viewport">
        {messages.map((m) => editing === m.id ? (
          <Editing key={m.id} message={m} onCancel={() => setEditing(null)} onSave={(value) => { setEditing(null); sendMessage({ text: value, messageId: m.id }); }} />
        ) : (
          <div key={m.id} className="msg" data-role={m.role}>
            <div className="body">{text(m)}</div>
            <div className="tools">
              {picker?.(m.id)}
              {!busy && m.role === "user" && <button className="edit" onClick={() => setEditing(m.id)}>Edit</button>}
              {!busy && m.role === "assistant" && <button className="reload" onClick={() => regenerate({ messageId: m.id })}>Reload</button>}
            </div>
          </div>
        ))}
      </div>
      <form className="composer" onSubmit={(e) => { e.preventDefault(); if (!input.trim() || busy) return; sendMessage({ text: input }); setInput(""); }}>
        <textarea className="input" placeholder="Message" value={input} autoFocus onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); e.currentTarget.form.requestSubmit(); } }} />
        <button type="submit" className="send" disabled={busy}>Send</button>
      </form>
    </div>
  );
}
