// The thread, built from assistant-ui's primitives: messages with a branch
// picker (‹ n/m ›), Edit on the user's, Reload on the assistant's, a composer.
// The same in the app and in its baseline.
import { ActionBarPrimitive, BranchPickerPrimitive, ComposerPrimitive, MessagePrimitive, ThreadPrimitive } from "@assistant-ui/react";

function BranchPicker() {
  return (
    <BranchPickerPrimitive.Root hideWhenSingleBranch className="picker">
      <BranchPickerPrimitive.Previous className="prev" aria-label="previous version">‹</BranchPickerPrimitive.Previous>
      <span className="count"><BranchPickerPrimitive.Number />/<BranchPickerPrimitive.Count /></span>
      <BranchPickerPrimitive.Next className="next" aria-label="next version">›</BranchPickerPrimitive.Next>
    </BranchPickerPrimitive.Root>
  );
}

function UserMessage() {
  return (
    <MessagePrimitive.Root className="msg" data-role="user">
      <div className="body"><MessagePrimitive.Parts /></div>
      <div className="tools">
        <BranchPicker />
        <ActionBarPrimitive.Root><ActionBarPrimitive.Edit className="edit">Edit</ActionBarPrimitive.Edit></ActionBarPrimitive.Root>
      </div>
    </MessagePrimitive.Root>
  );
}

function AssistantMessage() {
  return (
    <MessagePrimitive.Root className="msg" data-role="assistant">
      <div className="body"><MessagePrimitive.Parts /></div>
      <div className="tools">
        <BranchPicker />
        <ActionBarPrimitive.Root hideWhenRunning><ActionBarPrimitive.Reload className="reload">Reload</ActionBarPrimitive.Reload></ActionBarPrimitive.Root>
      </div>
    </MessagePrimitive.Root>
  );
}

function EditComposer() {
  return (
    <ComposerPrimitive.Root className="msg editing">
      <ComposerPrimitive.Input className="input" />
      <ComposerPrimitive.Cancel className="cancel">Cancel</ComposerPrimitive.Cancel>
      <ComposerPrimitive.Send className="save">Save</ComposerPrimitive.Send>
    </ComposerPrimitive.Root>
  );
}

export function Thread() {
  return (
    <ThreadPrimitive.Root className="thread">
      <ThreadPrimitive.Viewport className="viewport">
        <ThreadPrimitive.Messages components={{ UserMessage, AssistantMessage, EditComposer }} />
      </ThreadPrimitive.Viewport>
      <ComposerPrimitive.Root className="composer">
        <ComposerPrimitive.Input className="input" placeholder="Message" autoFocus />
        <ComposerPrimitive.Send className="send">Send</ComposerPrimitive.Send>
      </ComposerPrimitive.Root>
    </ThreadPrimitive.Root>
  );
}
